import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { IdempotencyAlreadyInProgressError } from '@aws-lambda-powertools/idempotency';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { CONSUMER_METRIC_NAMES } from '../contract/metric-names.js';
import { WebhookReceiverError } from '../core/errors.js';
import { endpointOf, parseBookingEvent } from './booking-event.js';
import type { ConsumerConfig } from './config.js';
import type { ProcessBooking } from './process-booking.js';
import {
  type Deduplicator,
  deliveryKeyOf,
  dynamoDbDeduplicator,
  type RunOnce,
} from './run-once.js';

/** Thrown for a message that is not a valid `event_booked` payload; the record goes to the DLQ. */
export class InvalidBookingEventError extends WebhookReceiverError {}

/** The one event type this example processes. */
const BOOKED = 'event_booked';

/** Metric counted for each record acknowledged without processing: its event is not {@link BOOKED}. */
export const SKIPPED_METRIC = CONSUMER_METRIC_NAMES.eventSkipped;

/** The consumer's Lambda handler. */
export type ConsumerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The example SQS consumer: parses each `event_booked` record into a typed booking and hands it
 * to `processBooking`, reporting failed records in `batchItemFailures` so only they are retried
 * and, after the queue's `maxReceiveCount`, moved to the dead-letter queue. Records of other
 * event types (queued when `FORWARD_EVENTS` is `*`) are acknowledged unprocessed, logged and
 * counted as {@link SKIPPED_METRIC}. On a FIFO queue processing stops at the first failure and
 * the rest of the batch is reported failed too, to keep the order. Records that failed are
 * counted in `RecordFailed`, copies acknowledged as duplicates in `DuplicateSkipped`.
 *
 * With `config.idempotency`, each booking is processed once per delivery key within the TTL
 * (Powertools Idempotency on DynamoDB): a copy already processed is acknowledged without calling
 * `processBooking`; a copy whose first attempt is still running is reported failed, so SQS
 * redelivers it once that attempt has finished. Without it, every copy is processed and a
 * warning says so once, at cold start. Needs `reportBatchItemFailures` on the event source mapping.
 *
 * @param config - the validated configuration
 * @param processBooking - the processing step
 */
export function createConsumerHandler(
  config: ConsumerConfig,
  processBooking: ProcessBooking,
): ConsumerHandler {
  const logger = new Logger({ serviceName: config.serviceName });
  const metrics = new Metrics({
    serviceName: config.serviceName,
    namespace: config.metricsNamespace,
  });
  const deduplicator: Deduplicator | undefined =
    config.idempotency && dynamoDbDeduplicator(config.idempotency);
  if (deduplicator === undefined) {
    logger.warn('IDEMPOTENCY_TABLE is not set: duplicate deliveries are not suppressed');
  }

  async function handleRecord(
    record: SQSRecord,
    runOnce: RunOnce | undefined,
    counts: BatchCounts,
  ): Promise<void> {
    const eventType = eventTypeOf(record);
    // With FORWARD_EVENTS=* the queue also carries other events. Failing them would retry each 5
    // times and fill the DLQ with valid webhooks; they are acknowledged, logged and counted.
    if (eventType !== undefined && eventType !== BOOKED) {
      logger.info('Skipped: not an event_booked', {
        event_type: eventType.slice(0, 100),
        message_id: record.messageId,
      });
      counts.eventSkipped += 1;
      return;
    }
    try {
      const parsed = parseBookingEvent(record.body, endpointOf(record));
      if (!parsed.ok) {
        throw new InvalidBookingEventError(
          `Message is not an event_booked payload: ${parsed.issues.join('; ')}`,
        );
      }
      const work = () => processBooking(parsed.event, record, logger);
      const key = deliveryKeyOf(record);
      if (runOnce === undefined || key === undefined) return await work();
      if ((await runOnce(key, work)) === 'duplicate') {
        logger.info('Duplicate acknowledged without processing', {
          dedup_key: key.dedupKey,
          message_id: record.messageId,
        });
        counts.duplicateSkipped += 1;
      }
    } catch (error) {
      // Logged here, where the message id is known; rethrown so the batch reports the record.
      if (error instanceof IdempotencyAlreadyInProgressError) {
        logger.info('Another attempt at this booking is in progress; SQS will redeliver the copy', {
          message_id: record.messageId,
        });
      } else {
        logger.warn('Record failed; SQS will retry it, then move it to the DLQ', {
          message_id: record.messageId,
          error,
        });
        counts.recordFailed += 1;
      }
      throw error;
    }
  }

  return async (event, context) => {
    logger.addContext(context);
    const fifo = event.Records[0]?.eventSourceARN.endsWith('.fifo') ?? false;
    const processor = fifo ? new SqsFifoPartialProcessorAsync() : new BatchProcessor(EventType.SQS);
    const runOnce = deduplicator?.forBatch(context);
    const counts: BatchCounts = { eventSkipped: 0, duplicateSkipped: 0, recordFailed: 0 };
    try {
      return await processPartialResponse(
        event,
        (record: SQSRecord) => handleRecord(record, runOnce, counts),
        processor,
        {
          context,
          // A batch where every record failed is still a partial response: SQS retries exactly those.
          throwOnFullBatchFailure: false,
        },
      );
    } finally {
      // One value per metric and batch; a batch with nothing to count publishes nothing (an
      // empty publish would log a warning on every batch).
      for (const [key, count] of Object.entries(counts)) {
        const name = CONSUMER_METRIC_NAMES[key as keyof BatchCounts];
        if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
      }
      if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
    }
  };
}

/** What one batch counts, published once per batch under {@link CONSUMER_METRIC_NAMES}. */
type BatchCounts = Record<keyof typeof CONSUMER_METRIC_NAMES, number>;

/**
 * The record's event type: the receiver's `event` attribute, else the body's `event` field (for
 * messages from another producer); undefined when neither says.
 */
function eventTypeOf(record: SQSRecord): string | undefined {
  const attribute = record.messageAttributes.event?.stringValue;
  if (attribute !== undefined) return attribute;
  try {
    const value: unknown = JSON.parse(record.body);
    const isObject = typeof value === 'object' && value !== null;
    return isObject && 'event' in value && typeof value.event === 'string'
      ? value.event
      : undefined;
  } catch {
    return undefined;
  }
}
