import { timingSafeEqual } from 'node:crypto';
import { escapeSlashes, squashJson, unescapeSlashes } from './canonical-json.js';
import {
  parseSignatureHeader,
  type SignatureHeader,
  splitSignatureGroups,
} from './signature-header.js';
import { assertUsableKey, type ReceivedBody, readBody, signedTextDigest } from './signed-text.js';

/** How far `t` may be from the clock, either way, unless the caller says otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Why a call is not accepted. `body_not_json` is the only one about the body, and is reported
 * only when the signature verified over the body's bytes as sent: an unsigned body never decides
 * the reason.
 */
export type VerifyFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'body_not_json';

/** What {@link verifySignature} checks. */
export interface VerifySignatureInput {
  /**
   * The raw `Service-Signature` header value, or one value per copy when the header came more
   * than once; `undefined` (or none) when the request had none. A value joined from several
   * copies (`t=…,signature=…,t=…,signature=…`) is split into groups, one per `t`.
   */
  readonly header: string | readonly string[] | undefined;
  /**
   * The body as it arrived: its text (what API Gateway and function URLs hand over; hashed as
   * its UTF-8 bytes, without a round trip through a Buffer), or its exact bytes (a base64 body,
   * decoded as UTF-8 once). `undefined` when the bytes could not be recovered (bad base64 from
   * the front door): the header is judged, and the signature cannot match.
   */
  readonly body: string | Uint8Array | undefined;
  /** Candidate keys in priority order (for example current, pending, previous). */
  readonly keys: readonly string[];
  /** The clock, in Unix seconds; injected so tests and tools can pick it. */
  readonly now: number;
  /**
   * How many seconds `t` may lie before or after `now`.
   * @default 300
   */
  readonly toleranceSeconds?: number;
}

/**
 * Outcome of {@link verifySignature}. On success it says which key and which spelling of the
 * body matched (for logs), never the expected digest.
 */
export type VerifyResult =
  | {
      readonly ok: true;
      /** The header's `t`, in Unix seconds. */
      readonly timestamp: number;
      /** Position in `keys` of the key that matched. */
      readonly keyIndex: number;
      /**
       * Which spelling of the body matched: as sent, with string `/` written `\/`, or with `\/`
       * written `/`.
       */
      readonly form: 'as_sent' | 'slashes_escaped' | 'slashes_unescaped';
      /** The squashed body as sent, for hashing when deduplicating calls. */
      readonly canonicalBody: string;
    }
  | {
      readonly ok: false;
      readonly reason: VerifyFailureReason;
      /** The header's `t`, once the header has been parsed. */
      readonly timestamp?: number;
    };

/** Which spelling of the body matched (see {@link VerifyResult}). */
export type SignedForm = Extract<VerifyResult, { ok: true }>['form'];

type VerifyFailure = Extract<VerifyResult, { ok: false }>;

// Which failure to report when several header copies fail: the one that got furthest.
const FAILURE_RANK: Readonly<Record<VerifyFailureReason, number>> = {
  missing_header: 0,
  malformed_header: 1,
  timestamp_too_old: 2,
  timestamp_in_future: 2,
  signature_mismatch: 3,
  body_not_json: 4,
};

// The spec leaves open whether string slashes are escaped in the signed text (section 5.2), so
// these two spellings are tried, in this order, only after the body as sent failed.
const SLASH_VARIANTS = [
  ['slashes_escaped', escapeSlashes],
  ['slashes_unescaped', unescapeSlashes],
] as const;

/**
 * Checks a `Service-Signature` header against the body it came with (spec section 5.2).
 *
 * For each copy of the header (and each `t` group of a joined copy), in this order: header
 * (missing or malformed), timestamp window (per group), then HMAC-SHA-256 of
 * `<t>.<squashed body>` for each key against every signature of the group, compared in constant
 * time. When no key matches the body as sent, the body with string slashes escaped and then
 * unescaped is tried. A body that is not a single JSON value is hashed as it is: if that
 * matches, the failure is `body_not_json` (signed, but not a JSON value); otherwise it is
 * `signature_mismatch` like any other unverified body. The call verifies when any group does;
 * otherwise the failure of the group that got furthest is reported.
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

  const state: CheckState = { input, tolerance, body: undefined };
  if (typeof input.header === 'string') {
    // A header that parses whole has a single `t`, so it is its only group: parsed once.
    const whole = parseSignatureHeader(input.header);
    if (whole.ok) return checkGroup(state, whole.header);
  }
  let worst: VerifyFailure = { ok: false, reason: 'missing_header' };
  for (const group of signatureGroups(input.header)) {
    const parsed = parseSignatureHeader(group);
    const result = parsed.ok ? checkGroup(state, parsed.header) : parsed;
    if (result.ok) return result;
    if (FAILURE_RANK[result.reason] >= FAILURE_RANK[worst.reason]) worst = result;
  }
  return worst;
}

/**
 * Why no copy of a `Service-Signature` header can be read, as {@link verifySignature} would
 * report it: `missing_header` when there is none, `malformed_header` when no `t` group of any
 * copy parses; `undefined` when one does. It needs neither keys nor body, so a call that can
 * never verify is answered before any key is loaded.
 *
 * @param header - the header as {@link VerifySignatureInput.header} takes it
 */
export function unreadableHeaderReason(
  header: VerifySignatureInput['header'],
): 'missing_header' | 'malformed_header' | undefined {
  const groups = signatureGroups(header);
  if (groups.length === 0) return 'missing_header';
  return groups.some((group) => parseSignatureHeader(group).ok) ? undefined : 'malformed_header';
}

/** What the groups of one call share: the input, and the body once a group needed it. */
interface CheckState {
  readonly input: VerifySignatureInput;
  readonly tolerance: number;
  body: PreparedBody | undefined;
}

/** One parsed group: its timestamp window, then its signatures against the body. */
function checkGroup(state: CheckState, header: SignatureHeader): VerifyResult {
  const { input, tolerance } = state;
  const { timestamp } = header;
  if (input.now - timestamp > tolerance)
    return { ok: false, reason: 'timestamp_too_old', timestamp };
  if (timestamp - input.now > tolerance) {
    return { ok: false, reason: 'timestamp_in_future', timestamp };
  }
  if (input.body === undefined) return { ok: false, reason: 'signature_mismatch', timestamp };
  state.body ??= prepareBody(input.body);
  return verifyGroup(state.body, input.keys, header);
}

/** Every `t` group of every copy of the header; one header, as usually sent, without a flatMap. */
function signatureGroups(header: string | readonly string[] | undefined): readonly string[] {
  if (typeof header === 'string') return splitSignatureGroups(header);
  return header === undefined ? [] : header.flatMap(splitSignatureGroups);
}

/** The body decoded and squashed once, however many header groups are checked against it. */
interface PreparedBody {
  /** The body exactly as given, hashed as it is when it is not JSON. */
  readonly raw: string | Uint8Array;
  readonly received: ReceivedBody;
  /** The squashed body; `undefined` when the body is not a single JSON value. */
  readonly canonicalBody: string | undefined;
  /**
   * How the squashed body and its slash variants turn into bytes: `'latin1'` when it is all ASCII
   * (see {@link ReceivedBody.encoding}), as squashing finds out for a string body on the way.
   */
  readonly encoding: ReceivedBody['encoding'];
}

function prepareBody(body: string | Uint8Array): PreparedBody {
  const received = readBody(body);
  const squashed = squashJson(received.text);
  if (!squashed.ok) return { raw: body, received, canonicalBody: undefined, encoding: 'utf8' };
  const encoding = squashed.ascii ? 'latin1' : received.encoding;
  return { raw: body, received, canonicalBody: squashed.text, encoding };
}

function verifyGroup(
  body: PreparedBody,
  keys: readonly string[],
  header: SignatureHeader,
): VerifyResult {
  const { timestamp, timestampText, signatures } = header;
  const { raw, received, canonicalBody, encoding } = body;
  const { bytes } = received;
  if (canonicalBody === undefined) {
    // Not JSON: only a signature over the exact bytes makes this a signed (if unusable) body.
    const signed = findMatchingKey(keys, timestampText, raw, 'utf8', signatures);
    return { ok: false, reason: signed === -1 ? 'signature_mismatch' : 'body_not_json', timestamp };
  }
  // No shortcut hashes the body as sent before squashing it: a match would also accept a body
  // signed with spaces between tokens, which the spec's signed text excludes (vector
  // py-signed-with-default-separators), so the grammar pass would still be needed to rule that
  // out, and a pass that only looks for whitespace outside strings measured no cheaper than it.
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
  for (let index = 0; index < keys.length; index++) {
    const digest = signedTextDigest(keys[index] as string, timestampText, body, encoding);
    for (const signature of signatures) {
      // timingSafeEqual throws on different lengths; the parser only keeps 32-byte digests, and
      // this check keeps that a guarantee of this function rather than of the parser.
      if (signature.length === digest.length && timingSafeEqual(signature, digest)) return index;
    }
  }
  return -1;
}
