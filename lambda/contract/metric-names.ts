/**
 * The CloudWatch metrics (EMF) the receiver and the example consumer publish and the CDK alarms
 * and dashboard read: their namespace, names and dimensions, in one dependency-free module so
 * the CDK app names exactly what the functions emit without pulling in Powertools. Keep the
 * values exact: they are a documented interface.
 * @module
 */

/** The namespace both functions publish under unless `POWERTOOLS_METRICS_NAMESPACE` says otherwise. */
export const METRICS_NAMESPACE = 'ServiceWebhookReceiver';

/** The receiver's metric names. Renaming one renames what its alarm watches. */
export const METRIC_NAMES = {
  received: 'WebhookReceived',
  forwarded: 'WebhookForwarded',
  ignored: 'WebhookIgnored',
  /**
   * Calls whose signature verified (forwarded plus ignored): the sender is delivering. The
   * silence alarms watch it, one metric rather than a sum that is missing when one part is.
   */
  verified: 'WebhookVerified',
  rejected: 'WebhookRejected',
  signatureRejected: 'SignatureRejected',
  /** Calls refused for a source address outside `ALLOWED_SOURCE_IPS` (never in SignatureRejected). */
  sourceNotAllowed: 'SourceNotAllowed',
  /** A key set loaded from Secrets Manager (once per cache period and execution environment). */
  keyLoaded: 'KeyLoaded',
  keyLoadFailure: 'KeyLoadFailure',
  queueSendFailure: 'QueueSendFailure',
  /** Archive records not taken within the write bound (the answer was sent all the same). */
  archiveWriteFailure: 'ArchiveWriteFailure',
} as const;

/**
 * Dimension of the per-endpoint counts (`WebhookVerified`, `WebhookRejected`) a receiver serving
 * named endpoints publishes beside its totals; its value is the endpoint name.
 */
export const ENDPOINT_DIMENSION = 'endpoint';

/** The example consumer's metric names. */
export const CONSUMER_METRIC_NAMES = {
  /** A record acknowledged unprocessed: its event is not `event_booked`. */
  eventSkipped: 'EventSkipped',
  /** A copy of a booking already processed, acknowledged without calling `processBooking`. */
  duplicateSkipped: 'DuplicateSkipped',
  /** A record reported failed: SQS retries it, then moves it to the dead-letter queue. */
  recordFailed: 'RecordFailed',
} as const;
