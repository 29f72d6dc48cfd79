import {
  BatchProcessor,
  EventType,
  processPartialResponse,
  SqsFifoPartialProcessorAsync,
} from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
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

const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'webhook-consumer',
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

async function handleRecord(record: SQSRecord): Promise<void> {
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
 * Example SQS consumer: parses each record into a typed {@link BookingEvent} and processes it,
 * reporting failed records in `batchItemFailures` so only they are retried and, after the
 * queue's `maxReceiveCount`, moved to the dead-letter queue. On a FIFO queue processing stops at
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
  return processPartialResponse(event, handleRecord, processor, {
    context,
    // A batch where every record failed is still a partial response: SQS retries exactly those.
    throwOnFullBatchFailure: false,
  });
};
