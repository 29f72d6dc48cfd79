/**
 * The one base class of every error this project throws on purpose. Expected failures are
 * results; errors are thrown only for outages (a dependency did not answer) and for bugs or bad
 * configuration, and sharing one base lets a caller tell them from errors it did not expect.
 */

/**
 * Base of every error this project throws on purpose: `catch (e) { if (e instanceof
 * WebhookReceiverError) … }` holds for the construct's, the signature kit's and the consumer's
 * errors alike. Its `name` is the subclass's.
 */
export class WebhookReceiverError extends Error {
  /**
   * @param message - what failed (never key material or payload)
   * @param options - the underlying error, if any
   */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
