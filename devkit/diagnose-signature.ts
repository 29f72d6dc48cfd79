import { createHash, timingSafeEqual } from 'node:crypto';
import { MAX_BODY_BYTES_LIMIT } from '../lambda/contract/settings.js';
import { squashJson } from '../lambda/core/canonical-json.js';
import {
  parseSignatureHeader,
  type VerifyFailureReason,
  verifySignature,
} from '../lambda/core/index.js';
import { signedTextDigest } from '../lambda/core/signed-text.js';
import { phpJsonEncode } from './booking-payload.js';
import { nestedDeeperThan } from './json-depth.js';
import type { SigningKey } from './signing-key.js';

/** A call that failed verification, as the `verify` tool saw it. */
export interface FailedVerification {
  readonly header: string;
  readonly body: Uint8Array;
  readonly key: SigningKey;
  readonly now: number;
  readonly reason: VerifyFailureReason;
  /** The header's `t`, when the header could be parsed. */
  readonly timestamp?: number | undefined;
}

// Encoders a sender or something on the way may have written the JSON with.
const REENCODINGS: ReadonlyArray<readonly [name: string, encode: (value: unknown) => string]> = [
  ['JSON.parse + JSON.stringify', (value) => JSON.stringify(value)],
  ["PHP's json_encode defaults", phpJsonEncode],
];

/**
 * What {@link diagnoseSignature} found: hints, or why it could not look (the body is beyond what
 * it reads).
 */
export type SignatureDiagnosis =
  | { readonly ok: true; readonly hints: readonly string[] }
  | { readonly ok: false; readonly why: string };

/**
 * Deepest nesting of arrays and objects the diagnosis re-encodes. A booking body is three levels
 * deep (spec 2.1-2.3); re-encoding recurses once per level, so a body nested thousands of levels
 * deep would exhaust the call stack.
 */
export const MAX_DIAGNOSED_DEPTH = 64;

/**
 * Largest body the diagnosis reads: the most `MAX_BODY_BYTES` can ever let through. It hashes the
 * body once per candidate cause, so its cost grows with the size.
 */
export const MAX_DIAGNOSED_BODY_BYTES = MAX_BODY_BYTES_LIMIT;

/**
 * Explains the most likely causes of a failed verification, one hint per line. It looks for a
 * changed variable that would have made the signature match (another clock, the body as another
 * encoder writes it, the key with its whitespace, the body with its whitespace) and reports what
 * it finds; the call stays rejected, whatever is found. Bounded: a body larger than
 * {@link MAX_DIAGNOSED_BODY_BYTES} or nested deeper than {@link MAX_DIAGNOSED_DEPTH} is not read,
 * and the result says so; it never throws for any body.
 *
 * @returns hints in order of likelihood (a generic one when nothing specific is found), or why
 *   there are none
 */
export function diagnoseSignature(failure: FailedVerification): SignatureDiagnosis {
  switch (failure.reason) {
    case 'missing_header':
    case 'malformed_header':
      return { ok: true, hints: [headerHint(failure.header)] };
    case 'body_not_json':
      return { ok: true, hints: [bodyHint(failure.body)] };
    case 'timestamp_too_old':
    case 'timestamp_in_future':
    case 'signature_mismatch': {
      const why = beyondBounds(failure.body);
      if (why !== undefined) return { ok: false, why };
      return {
        ok: true,
        hints:
          failure.reason === 'signature_mismatch' ? mismatchHints(failure) : clockHints(failure),
      };
    }
  }
}

/** Why the diagnosis will not read `body` (too large, too deep), or `undefined` when it will. */
function beyondBounds(body: Uint8Array): string | undefined {
  if (body.byteLength > MAX_DIAGNOSED_BODY_BYTES) {
    return `body of ${body.byteLength} bytes, above the ${MAX_DIAGNOSED_BODY_BYTES} the diagnosis reads (the most MAX_BODY_BYTES allows)`;
  }
  if (nestedDeeperThan(body, MAX_DIAGNOSED_DEPTH)) {
    return `body nested deeper than ${MAX_DIAGNOSED_DEPTH} levels`;
  }
  return undefined;
}

function headerHint(header: string): string {
  if (/^\s*service-signature\s*:/i.test(header)) {
    return 'pass only the header value (t=...,signature=...), without "Service-Signature:"';
  }
  return 'the header value must look like t=<Unix seconds>,signature=<64 hex characters>';
}

function bodyHint(body: Uint8Array): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
    return 'the body file starts with a UTF-8 byte-order mark, which the sender does not send: save the body without it';
  }
  return 'the body is not a single JSON value: save the raw request body exactly as received (no headers, no form encoding)';
}

/** The timestamp is outside the window: would the signature hold at the time it names? */
function clockHints(failure: FailedVerification): string[] {
  const { timestamp = failure.now } = failure;
  const offset = Math.abs(failure.now - timestamp);
  const direction = timestamp < failure.now ? 'before' : 'after';
  const atSigningTime = verifyAt(failure, failure.body, failure.key.key);
  if (atSigningTime.ok) {
    return [
      `the signature is valid at --now ${timestamp}: the call was signed ${duration(offset)} ${direction} --now, so either a clock (this machine's or the sender's) is off by that much or this is an old call replayed`,
    ];
  }
  return [
    `t is ${duration(offset)} ${direction} --now, and even at --now ${timestamp} the signature would not match:`,
    ...mismatchHints(failure),
  ];
}

/** Seconds as given, plus a rough reading for spans too long to take in at a glance. */
function duration(seconds: number): string {
  const rough: ReadonlyArray<readonly [unit: string, size: number]> = [
    ['days', 86_400],
    ['hours', 3_600],
    ['minutes', 60],
  ];
  const fitting = rough.find(([, size]) => seconds >= 2 * size);
  return fitting === undefined
    ? `${seconds} s`
    : `${seconds} s (about ${Math.round(seconds / fitting[1])} ${fitting[0]})`;
}

function mismatchHints(failure: FailedVerification): string[] {
  // Unsigned text that is not JSON is a mismatch like any other; its likeliest cause is the file.
  if (!squashJson(Buffer.from(failure.body).toString('utf8')).ok) return [bodyHint(failure.body)];
  const hints = [...reencodingHints(failure), ...keyHints(failure), ...unsquashedHints(failure)];
  if (hints.length > 0) return hints;
  return [
    `no simple cause found: the key (${describeKey(failure.key.key)}) is most likely not this endpoint's (or was rotated), or the body file is not the exact bytes received`,
  ];
}

function reencodingHints(failure: FailedVerification): string[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(failure.body).toString('utf8'));
  } catch {
    return [];
  }
  return REENCODINGS.filter(
    ([, encode]) => verifyAt(failure, encode(value), failure.key.key).ok,
  ).map(
    ([name]) =>
      `the signature matches the body as re-serialized by ${name}: the body was altered in transit (a proxy or framework parsed and re-wrote the JSON); verify the raw bytes as received`,
  );
}

function keyHints(failure: FailedVerification): string[] {
  const { key, raw, source } = failure.key;
  const candidates = new Set([raw, `${key}\n`, `${key}\r\n`, ` ${key}`, `${key} `]);
  candidates.delete(key);
  const matching = [...candidates].find(
    (candidate) => verifyAt(failure, failure.body, candidate).ok,
  );
  if (matching === undefined) return [];
  return [
    `the signature matches the key with ${surroundingWhitespace(matching, key)} (${describeKey(matching)}; the trimmed key is ${describeKey(key)}): the sender signs with an untrimmed key while this tool and the receiver trim ${source}; remove the whitespace from the sender's key`,
  ];
}

/**
 * A key as hints may show it: its length and the first 8 hex digits of its SHA-256, enough to
 * compare two copies of a key without showing either.
 *
 * @param key - the key
 */
export function describeKey(key: string): string {
  const digest = createHash('sha256').update(key, 'utf8').digest('hex');
  return `${key.length} characters, SHA-256 ${digest.slice(0, 8)}…`;
}

/** The whitespace around `key` in `padded`, spelled out (whitespace only, never key text). */
function surroundingWhitespace(padded: string, key: string): string {
  const start = padded.indexOf(key);
  const parts: string[] = [];
  const before = padded.slice(0, start);
  const after = padded.slice(start + key.length);
  if (before !== '') parts.push(`leading ${JSON.stringify(before)}`);
  if (after !== '') parts.push(`trailing ${JSON.stringify(after)}`);
  return `${parts.join(' and ')} whitespace`;
}

/** Did the sender sign the body as sent, whitespace between tokens included (spec 5.2 step 2 squashes it)? */
function unsquashedHints(failure: FailedVerification): string[] {
  const parsed = parseSignatureHeader(failure.header);
  if (!parsed.ok) return [];
  const { timestampText, signatures } = parsed.header;
  const digest = signedTextDigest(
    failure.key.key,
    timestampText,
    Buffer.from(failure.body).toString('utf8'),
  );
  const matches = signatures.some((signature) => timingSafeEqual(signature, digest));
  if (!matches) return [];
  return [
    'the signature matches the body exactly as sent, whitespace included: the sender signs its text before squashing, but the scheme signs the JSON without whitespace between tokens (spec 5.2 step 2)',
  ];
}

/** Verification with a substitute body or key, at the time the header names (the clock is not in question here). */
function verifyAt(failure: FailedVerification, body: string | Uint8Array, key: string) {
  const now = failure.timestamp ?? failure.now;
  return verifySignature({ header: failure.header, body, keys: [key], now });
}
