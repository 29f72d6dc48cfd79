import { loadConsumerConfig } from './config.js';
import { createConsumerHandler } from './handler.js';
import { processBooking } from './process-booking.js';

export {
  type BookingEvent,
  endpointOf,
  type ParseBookingEventResult,
  parseBookingEvent,
} from './booking-event.js';
export { type ConsumerHandler, InvalidBookingEventError, SKIPPED_METRIC } from './handler.js';
export type { ProcessBooking } from './process-booking.js';

/**
 * Lambda entry point of the example consumer: {@link processBooking} (in `process-booking.ts`,
 * the step to replace with yours) behind partial batch responses and, with `IDEMPOTENCY_TABLE`
 * set, duplicate suppression. Configuration is read and validated here, once per cold start.
 */
export const handler = createConsumerHandler(loadConsumerConfig(), processBooking);
