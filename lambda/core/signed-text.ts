import { isAscii, isUtf8 } from 'node:buffer';
import { createHmac } from 'node:crypto';

/**
 * Decodes a body as UTF-8, once. A `Uint8Array` is viewed in place (no copy) before decoding; a
 * byte-order mark is kept, so a body starting with one is not mistaken for bare JSON.
 */
export function decodeBody(body: string | Uint8Array): string {
  if (typeof body === 'string') return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/** A body decoded by {@link readBody}, with what its bytes allow when hashing text made from it. */
export interface ReceivedBody {
  /** The body decoded as UTF-8, exactly as {@link decodeBody} decodes it. */
  readonly text: string;
  /**
   * The bytes as received when `text` encodes back to exactly them (valid UTF-8), so they can be
   * hashed in its place; `undefined` for a string body or invalid UTF-8.
   */
  readonly bytes: Buffer | undefined;
  /**
   * How text made from `text` by adding or removing ASCII characters (squashing, slash rewrites)
   * turns into its UTF-8 bytes for the HMAC. `'latin1'` when the body is all ASCII: the same bytes,
   * without the UTF-8 encoding pass, which costs about as much as the hash itself.
   */
  readonly encoding: 'latin1' | 'utf8';
}

/**
 * {@link decodeBody} for the verifier, which hashes bytes rather than re-encoded text where it
 * can. PHP's `json_encode`, the likely sender, writes pure ASCII by default.
 *
 * @param body - The body as received.
 */
export function readBody(body: string | Uint8Array): ReceivedBody {
  if (typeof body === 'string') return { text: body, bytes: undefined, encoding: 'utf8' };
  const bytes = Buffer.isBuffer(body)
    ? body
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // For ASCII, latin1 decoding gives the same text as UTF-8 decoding, faster.
  if (isAscii(bytes)) return { text: bytes.toString('latin1'), bytes, encoding: 'latin1' };
  const text = bytes.toString('utf8');
  return { text, bytes: isUtf8(bytes) ? bytes : undefined, encoding: 'utf8' };
}

/**
 * HMAC-SHA-256 of the signed text `<t>.<squashed body>` (spec section 5.2, steps 2 and 3).
 *
 * @param key - The secret key, used as UTF-8 bytes exactly as given (callers trim it).
 * @param timestampText - The `t` digits exactly as they appear in the header.
 * @param squashedBody - Output of `squashJson` or one of its slash variants, or exactly its UTF-8
 *   bytes.
 * @param encoding - How a string `squashedBody` becomes bytes: `'latin1'` only for ASCII text
 *   (see {@link ReceivedBody.encoding}).
 */
export function signedTextDigest(
  key: string,
  timestampText: string,
  squashedBody: string | Uint8Array,
  encoding: 'latin1' | 'utf8' = 'utf8',
): Buffer {
  // Two updates rather than one concatenation: a large body is then hashed without being copied.
  const hmac = createHmac('sha256', key).update(`${timestampText}.`, 'latin1');
  if (typeof squashedBody === 'string') hmac.update(squashedBody, encoding);
  else hmac.update(squashedBody);
  return hmac.digest();
}

/** Rejects keys that would make a signature meaningless: a bug in configuration, not a failure. */
export function assertUsableKey(key: string): void {
  if (key.length === 0) throw new RangeError('The HMAC key is empty');
}
