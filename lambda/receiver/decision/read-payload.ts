/**
 * Reads the fields the receiver needs out of a body whose signature verified. Never called on an
 * unverified body: an unsigned caller must not be able to choose the answer.
 */

/** The fields of a verified payload that the message is built from. */
export interface Payload {
  readonly text: string;
  readonly event: string;
  readonly eventAt: string | undefined;
  readonly source: string | undefined;
  readonly dataId: string | undefined;
}

/** Why a verified body cannot be forwarded (each a 400). */
export type PayloadFailureReason = 'body_not_utf8' | 'unsupported_characters' | 'invalid_payload';

/** Outcome of {@link readPayload}. */
export type PayloadResult =
  | ({ readonly ok: true } & Payload)
  | { readonly ok: false; readonly reason: PayloadFailureReason };

// Fatal: a body that is not valid UTF-8 cannot be stored byte for byte as text.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Characters SQS (and most stores) accept in message bodies and attribute values; anything else
// would make every store attempt fail on every retry, so such a call is refused up front.
const UNSAFE_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * The payload of a verified call.
 *
 * @param body - the body as received: its text, or its bytes
 * @param canonicalBody - the squashed body the verifier proved to be a single JSON value
 */
export function readPayload(body: string | Uint8Array, canonicalBody: string): PayloadResult {
  let text: string;
  try {
    text = typeof body === 'string' ? body : utf8.decode(body);
  } catch {
    return { ok: false, reason: 'body_not_utf8' };
  }
  if (!isStorable(text)) return { ok: false, reason: 'unsupported_characters' };
  const value: unknown = JSON.parse(canonicalBody);
  if (!isRecord(value) || !isSafeString(value.event)) {
    return { ok: false, reason: 'invalid_payload' };
  }
  return {
    ok: true,
    text,
    event: value.event,
    eventAt: optionalString(value.event_at),
    source: optionalString(value.source),
    dataId: isRecord(value.data) ? optionalString(value.data.id) : undefined,
  };
}

/**
 * Whether a body the verifier proved to be JSON has only characters a store accepts. Raw control
 * characters cannot appear in JSON text (outside strings only whitespace may, inside they must be
 * escaped), so what is left to refuse is U+FFFE, U+FFFF and lone surrogates (a string body from a
 * hand-made event can hold one). Checked with native scans rather than UNSAFE_CHARACTER, a
 * regular expression that is slower than the body's HMAC on non-ASCII text.
 */
function isStorable(json: string): boolean {
  return json.isWellFormed() && !json.includes('\uFFFE') && !json.includes('\uFFFF');
}

declare global {
  interface String {
    /** ES2024, in Node since 20: false when the string holds a lone surrogate. */
    isWellFormed(): boolean;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Empty attribute values and characters outside the allowed set are refused by SQS. */
function isSafeString(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !UNSAFE_CHARACTER.test(value);
}

function optionalString(value: unknown): string | undefined {
  return isSafeString(value) ? value : undefined;
}
