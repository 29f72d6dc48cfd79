import { WebhookReceiverError } from '../lambda/core/errors.js';

/**
 * Base of the errors for a value the user chose (a prop or a CDK context value) that the receiver
 * cannot use; each message names the prop or key. The CLI prints these as one line.
 */
export class InvalidConfigurationError extends WebhookReceiverError {}

/** Thrown when `WebhookReceiverProps` hold a value the receiver cannot work with. */
export class InvalidWebhookReceiverPropsError extends InvalidConfigurationError {}
