/**
 * What `service-webhook-receiver/consumer` exports: the parts of the example consumer that a
 * consumer of your own reuses, namely the typed `event_booked` payload and its parser, and the
 * SQS batch handler with partial batch responses and optional duplicate suppression. Unlike
 * `index.ts` (the Lambda entry point) it builds no handler and reads no environment on import.
 * @module
 */

export {
  CONSUMER_CONFIG_DEFAULTS,
  type Environment,
} from '../contract/environment.js';
export { WebhookReceiverError } from '../core/errors.js';
export {
  type BookingEvent,
  BookingEventSchema,
  type ParseBookingEventResult,
  parseBookingEvent,
} from './booking-event.js';
export { type ConsumerConfig, type IdempotencySettings, loadConsumerConfig } from './config.js';
export {
  type ConsumerHandler,
  createConsumerHandler,
  InvalidBookingEventError,
  SKIPPED_METRIC,
} from './handler.js';
export type { ProcessBooking } from './process-booking.js';
