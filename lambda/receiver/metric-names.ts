/**
 * CloudWatch metric names (EMF) of the receiver. The CDK alarms watch these, so they live in this
 * dependency-free module, which the CDK app imports without pulling in Powertools: renaming a
 * metric renames what its alarm watches. Keep the values exact, they are a documented interface.
 */
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
