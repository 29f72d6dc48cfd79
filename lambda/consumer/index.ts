import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { CONFIG_DEFAULTS } from '../receiver/config.js';
import { type BookingEvent, parseBookingEvent } from './booking-event.js';

export {
  type BookingEvent,
  type ParseBookingEventResult,
  parseBookingEvent,
} from './booking-event.js';

/** Thrown for a message that is not a valid `event_booked` payload; the record goes to the DLQ. */
export class InvalidBookingEventError extends Error {
  /**
   * @param message - what is wrong (paths and expectations, never field values)
   * @param options - the underlying error, if any
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidBookingEventError';
  }
}

/** The one event type this example processes. */
const BOOKED = 'event_booked';

/** Metric counted for each record acknowledged without processing: its event is not {@link BOOKED}. */
export const SKIPPED_METRIC = 'EventSkipped';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'webhook-consumer';
const logger = new Logger({ serviceName });
// The receiver's namespace unless the deployment sets its own; the service name tells them apart.
const metrics = new Metrics({
  serviceName,
  namespace:
    process.env.POWERTOOLS_METRICS_NAMESPACE || CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
});

/**
 * The example's processing step: replace it with yours. It logs identifiers only; the booking's
 * `data.user` is personal data. The `dedup_key` attribute (standard queues) or the FIFO
 * deduplication makes a repeated delivery recognisable: make your processing idempotent on it.
 *
 * @param booking - the parsed event
 * @param record - the SQS record it came from
 */
async function processBooking(booking: BookingEvent, record: SQSRecord): Promise<void> {
  logger.info('Booking received', {
    booking_id: booking.data.id,
    event_id: booking.data.event_id,
    session_start: booking.data.session_start,
    dedup_key: record.messageAttributes.dedup_key?.stringValue,
    message_id: record.messageId,
  });
}

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

async function handleRecord(record: SQSRecord): Promise<void> {
  const eventType = eventTypeOf(record);
  // With FORWARD_EVENTS=* the queue also carries other events. Failing them would retry each 5
  // times and fill the DLQ with valid webhooks; they are acknowledged, logged and counted.
  if (eventType !== undefined && eventType !== BOOKED) {
    logger.info('Skipped: not an event_booked', {
      event_type: eventType.slice(0, 100),
      message_id: record.messageId,
    });
    metrics.addMetric(SKIPPED_METRIC, MetricUnit.Count, 1);
    return;
  }
  try {
    const parsed = parseBookingEvent(record.body);
    if (!parsed.ok) {
      throw new InvalidBookingEventError(
        `Message is not an event_booked payload: ${parsed.issues.join('; ')}`,
      );
    }
    await processBooking(parsed.event, record);
  } catch (error) {
    // Logged here, where the message id is known; rethrown so the batch reports the record.
    logger.warn('Record failed; SQS will retry it, then move it to the DLQ', {
      message_id: record.messageId,
      error,
    });
    throw error;
  }
}

/**
 * Example SQS consumer: parses each `event_booked` record into a typed {@link BookingEvent} and
 * processes it, reporting failed records in `batchItemFailures` so only they are retried and,
 * after the queue's `maxReceiveCount`, moved to the dead-letter queue. Records of other event
 * types (queued when `FORWARD_EVENTS` is `*`) are acknowledged unprocessed, logged and counted
 * as {@link SKIPPED_METRIC}. On a FIFO queue processing stops at
 * the first failure and the rest of the batch is reported failed too, to keep the order.
 * Needs `reportBatchItemFailures` on the event source mapping.
 *
 * @param event - the batch from SQS
 * @param context - Lambda context
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  logger.addContext(context);
  const fifo = event.Records[0]?.eventSourceARN.endsWith('.fifo') ?? false;
  const processor = fifo ? new SqsFifoPartialProcessorAsync() : new BatchProcessor(EventType.SQS);
  try {
    return await processPartialResponse(event, handleRecord, processor, {
      context,
      // A batch where every record failed is still a partial response: SQS retries exactly those.
      throwOnFullBatchFailure: false,
    });
  } finally {
    // Only skips are counted; an empty publish would log a warning on every batch.
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  }
};
