import { createHmac } from 'node:crypto';

/**
 * Decodes a body as UTF-8, once. A `Uint8Array` is viewed in place (no copy) before decoding; a
 * byte-order mark is kept, so a body starting with one is not mistaken for bare JSON.
 */
export function decodeBody(body: string | Uint8Array): string {
  if (typeof body === 'string') return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/**
 * HMAC-SHA-256 of the signed text `<t>.<squashed body>` (spec section 5.2, steps 2 and 3).
 *
 * @param key - The secret key, used as UTF-8 bytes exactly as given (callers trim it).
 * @param timestampText - The `t` digits exactly as they appear in the header.
 * @param squashedBody - Output of `squashJson` or one of its slash variants.
 */
export function signedTextDigest(key: string, timestampText: string, squashedBody: string): Buffer {
  // Two updates rather than one concatenation: a large body is then hashed without being copied.
  return createHmac('sha256', key).update(`${timestampText}.`).update(squashedBody).digest();
}

/** Rejects keys that would make a signature meaningless: a bug in configuration, not a failure. */
export function assertUsableKey(key: string): void {
  if (key.length === 0) throw new RangeError('The HMAC key is empty');
}
