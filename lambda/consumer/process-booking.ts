import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSRecord } from 'aws-lambda';
import type { BookingEvent } from './booking-event.js';

/** The processing step's signature: {@link processBooking} or yours. */
export type ProcessBooking = (
  booking: BookingEvent,
  record: SQSRecord,
  logger: Logger,
) => Promise<void>;

/**
 * The example's processing step: REPLACE IT WITH YOURS. It runs once per booking: with
 * `IDEMPOTENCY_TABLE` set, a copy of a booking processed within the TTL is acknowledged without
 * calling it, and when it throws, no record is kept, so SQS's retry calls it again. It logs
 * identifiers only (the booking id next to the receiver's `request_id`); the booking's
 * `data.user` is personal data.
 *
 * @param booking - the parsed event
 * @param record - the SQS record it came from
 * @param logger - the consumer's logger (Lambda context attached)
 */
export const processBooking: ProcessBooking = async (booking, record, logger) => {
  logger.info('Booking received', {
    booking_id: booking.data.id,
    event_id: booking.data.event_id,
    session_start: booking.data.session_start,
    dedup_key: record.messageAttributes.dedup_key?.stringValue,
    message_id: record.messageId,
    // The front door's request id: follows the delivery from the API access log to here.
    request_id: record.messageAttributes.request_id?.stringValue,
  });
};
