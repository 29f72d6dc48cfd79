import { squashJson } from './canonical-json.js';
import { WebhookReceiverError } from './errors.js';
import { assertUsableKey, decodeBody, signedTextDigest } from './signed-text.js';

/** Thrown by {@link signPayload} when asked to sign a body that is not a single JSON value. */
export class BodyNotJsonError extends WebhookReceiverError {}

/**
 * Produces the `Service-Signature` header value the service would send with `body`:
 * `t=<timestamp>,signature=<lowercase hex HMAC-SHA-256 of "<t>.<squashed body>">`.
 * For tests and tools; the receiver only verifies.
 *
 * @param body - The body as it will be sent; whitespace between JSON tokens is not signed.
 * @param key - The secret key, used exactly as given.
 * @param timestamp - Unix seconds to sign at.
 * @throws BodyNotJsonError when `body` is not a single JSON value (the service only signs JSON).
 * @throws RangeError when `key` is empty or `timestamp` is not a non-negative integer.
 */
export function signPayload(body: string | Uint8Array, key: string, timestamp: number): string {
  assertUsableKey(key);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`timestamp must be a non-negative integer, got ${timestamp}`);
  }
  const squashed = squashJson(decodeBody(body));
  if (!squashed.ok) throw new BodyNotJsonError('The body is not a single JSON value');
  const digest = signedTextDigest(key, String(timestamp), squashed.text);
  return `t=${timestamp},signature=${digest.toString('hex')}`;
}
