/**
 * The receiver's named errors. Expected failures are results; these are thrown only for outages
 * (a dependency did not answer) and for bugs or bad configuration, and they share one base class
 * so a caller can tell them from errors it did not expect.
 */

/** Base of every error this project throws on purpose. */
export class WebhookReceiverError extends Error {
  /**
   * @param message - what failed (never key material or payload)
   * @param options - the underlying error, if any
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Thrown by a key source when no key set can be loaded: an outage, answered with 503. */
export class KeyLoadError extends WebhookReceiverError {}

/** Thrown by a message sink when it did not store the message: answered with 503. */
export class SinkSendError extends WebhookReceiverError {}
