/**
 * CloudWatch metric names (EMF) of the example consumer, in this dependency-free module so the
 * CDK dashboard names exactly what the consumer emits without pulling in Powertools.
 */
export const CONSUMER_METRIC_NAMES = {
  /** A record acknowledged unprocessed: its event is not `event_booked`. */
  eventSkipped: 'EventSkipped',
  /** A copy of a booking already processed, acknowledged without calling `processBooking`. */
  duplicateSkipped: 'DuplicateSkipped',
  /** A record reported failed: SQS retries it, then moves it to the dead-letter queue. */
  recordFailed: 'RecordFailed',
} as const;
