import { timingSafeEqual } from 'node:crypto';
import { escapeSlashes, squashJson, unescapeSlashes } from './canonical-json.js';
import { parseSignatureHeader } from './signature-header.js';
import { assertUsableKey, readBody, signedTextDigest } from './signed-text.js';

/** How far `t` may be from the clock, either way, unless the caller says otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a call is not accepted, in the order the checks run. */
export type VerifyFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'body_not_json'
  | 'signature_mismatch';

/** Which spelling of the body matched: as sent, with string '/' written '\/', or with '\/' written '/'. */
export type SignedForm = 'as_sent' | 'slashes_escaped' | 'slashes_unescaped';

/** What {@link verifySignature} checks. */
export interface VerifySignatureInput {
  /** The raw `Service-Signature` header value; `undefined` when the request had none. */
  header: string | undefined;
  /** The exact bytes as received; a `Uint8Array` is decoded as UTF-8. */
  body: string | Uint8Array;
  /** Candidate keys in priority order (for example current, pending, previous). */
  keys: readonly string[];
  /** The clock, in Unix seconds; injected so tests and tools can pick it. */
  now: number;
  /**
   * How many seconds `t` may lie before or after `now`.
   * @default 300
   */
  toleranceSeconds?: number;
}

/**
 * Outcome of {@link verifySignature}. On success it says which key and which spelling of the
 * body matched (for logs), never the expected digest. `canonicalBody` is the squashed body as
 * sent, for hashing when deduplicating calls. `timestamp` is present on failures once the header
 * has been parsed.
 */
export type VerifyResult =
  | { ok: true; timestamp: number; keyIndex: number; form: SignedForm; canonicalBody: string }
  | { ok: false; reason: VerifyFailureReason; timestamp?: number };

// The spec leaves open whether string slashes are escaped in the signed text (section 5.2), so
// these two spellings are tried, in this order, only after the body as sent failed.
const SLASH_VARIANTS = [
  ['slashes_escaped', escapeSlashes],
  ['slashes_unescaped', unescapeSlashes],
] as const;

/**
 * Checks a `Service-Signature` header against the body it came with (spec section 5.2).
 *
 * Checks run in this order: header (missing or malformed), timestamp window, body squashing
 * (not a single JSON value), then HMAC-SHA-256 of `<t>.<squashed body>` for each key against
 * every signature in the header, compared in constant time. When no key matches the body as
 * sent, the body with string slashes escaped and then unescaped is tried.
 *
 * Expected failures are returned, never thrown.
 *
 * @throws RangeError when the input is unusable (no key, an empty key, a non-finite clock or a
 *   negative tolerance): those are configuration bugs, not rejected calls.
 */
export function verifySignature(input: VerifySignatureInput): VerifyResult {
  const { keys, now } = input;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  assertUsableInput(keys, now, tolerance);

  const parsed = parseSignatureHeader(input.header);
  if (!parsed.ok) return parsed;
  const { timestamp, timestampText, signatures } = parsed.header;
  if (now - timestamp > tolerance) return { ok: false, reason: 'timestamp_too_old', timestamp };
  if (timestamp - now > tolerance) return { ok: false, reason: 'timestamp_in_future', timestamp };

  const received = readBody(input.body);
  const squashed = squashJson(received.text);
  if (!squashed.ok) return { ok: false, reason: 'body_not_json', timestamp };
  const canonicalBody = squashed.text;
  const { bytes, encoding } = received;
  // When squashing removed nothing, the bytes as received are the signed body: hashed as they
  // are, without encoding the text back to UTF-8.
  const asSent = canonicalBody === received.text && bytes !== undefined ? bytes : canonicalBody;

  const keyIndex = findMatchingKey(keys, timestampText, asSent, encoding, signatures);
  if (keyIndex !== -1) return { ok: true, timestamp, keyIndex, form: 'as_sent', canonicalBody };
  // Outside strings valid JSON has no slash, so without one neither variant differs.
  if (canonicalBody.includes('/')) {
    for (const [form, rewrite] of SLASH_VARIANTS) {
      const variant = rewrite(canonicalBody);
      // Each rewrite only lengthens or only shortens the text: same length means nothing changed.
      if (variant.length === canonicalBody.length) continue;
      const variantKeyIndex = findMatchingKey(keys, timestampText, variant, encoding, signatures);
      if (variantKeyIndex !== -1) {
        return { ok: true, timestamp, keyIndex: variantKeyIndex, form, canonicalBody };
      }
    }
  }
  return { ok: false, reason: 'signature_mismatch', timestamp };
}

function assertUsableInput(keys: readonly string[], now: number, tolerance: number): void {
  if (keys.length === 0) throw new RangeError('verifySignature needs at least one key');
  for (const key of keys) assertUsableKey(key);
  if (!Number.isFinite(now)) throw new RangeError(`now must be a finite number, got ${now}`);
  if (!(tolerance >= 0)) throw new RangeError(`toleranceSeconds must be >= 0, got ${tolerance}`);
}

/** Index of the first key whose digest equals one of the header's signatures, or -1. */
function findMatchingKey(
  keys: readonly string[],
  timestampText: string,
  body: string | Uint8Array,
  encoding: 'latin1' | 'utf8',
  signatures: readonly Buffer[],
): number {
  for (const [index, key] of keys.entries()) {
    const digest = signedTextDigest(key, timestampText, body, encoding);
    for (const signature of signatures) {
      // timingSafeEqual throws on different lengths; the parser only keeps 32-byte digests, and
      // this check keeps that a guarantee of this function rather than of the parser.
      if (signature.length === digest.length && timingSafeEqual(signature, digest)) return index;
    }
  }
  return -1;
}
