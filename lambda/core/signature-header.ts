/** The header the service signs its calls in (spec section 2.4), as it spells it. */
export const SIGNATURE_HEADER = 'Service-Signature';

/** {@link SIGNATURE_HEADER} as Node.js and API Gateway's HTTP API hand header names over: lower case. */
export const SIGNATURE_HEADER_KEY = SIGNATURE_HEADER.toLowerCase() as Lowercase<
  typeof SIGNATURE_HEADER
>;

/**
 * Longest `Service-Signature` value we read, in characters. A genuine header is about 80
 * characters (a few more with several signatures during a key rotation); anything far longer is
 * rejected before it is split, so a huge header costs nothing.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 1024;

/** A `Service-Signature` header value taken apart (spec section 2.4). */
export interface SignatureHeader {
  /** The `t` component as a number of Unix seconds. */
  readonly timestamp: number;
  /** The `t` component exactly as sent: the signed text starts with these digits, not a re-print. */
  readonly timestampText: string;
  /** The 32-byte digests of every well-formed `signature` component, in header order. */
  readonly signatures: readonly Buffer[];
}

/** Outcome of {@link parseSignatureHeader}: the parts, or why the value cannot be used. */
export type ParseSignatureHeaderResult =
  | { readonly ok: true; readonly header: SignatureHeader }
  | { readonly ok: false; readonly reason: 'missing_header' | 'malformed_header' };

const DECIMAL_DIGITS = /^[0-9]+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
// The exact shape the service sends (spec section 2.4): checked with one match, as every call pays
// it, then cut at known offsets (the signature is the last 64 characters).
const CANONICAL_HEADER = /^t=[0-9]+,signature=[0-9a-f]{64}$/;
const CANONICAL_SIGNATURE_START = -64;
const CANONICAL_TIMESTAMP_END = CANONICAL_SIGNATURE_START - ',signature='.length;

/**
 * Parses a `Service-Signature` header value such as `t=1700000000,signature=<64 hex>`.
 *
 * Components are split on `,` and each on its first `=`, with surrounding spaces trimmed; their
 * order does not matter and unknown components are ignored, so a sender may add fields later.
 * Several `signature` components are kept (a sender rotating keys may send one per key);
 * components that are not exactly 64 hex characters are skipped, and the header is malformed
 * when none is left. A missing, repeated or non-decimal `t` is malformed too.
 *
 * Never throws, whatever the input.
 *
 * @param value - The raw header value; `undefined` when the request had no such header.
 * @returns The timestamp and decoded digests, or why the header cannot be used.
 */
export function parseSignatureHeader(value: string | undefined): ParseSignatureHeaderResult {
  if (value === undefined) return { ok: false, reason: 'missing_header' };
  if (value.length > MAX_SIGNATURE_HEADER_LENGTH) return { ok: false, reason: 'malformed_header' };
  if (!CANONICAL_HEADER.test(value)) return parseComponents(value);
  const signature = Buffer.from(value.slice(CANONICAL_SIGNATURE_START), 'hex');
  return parsed(value.slice('t='.length, CANONICAL_TIMESTAMP_END), [signature]);
}

/** The general case: components in any order, spaces, unknown components, several signatures. */
function parseComponents(value: string): ParseSignatureHeaderResult {
  let timestampText: string | undefined;
  const signatures: Buffer[] = [];
  for (const component of value.split(',')) {
    const separator = component.indexOf('=');
    if (separator === -1) continue;
    const name = component.slice(0, separator).trim();
    const text = component.slice(separator + 1).trim();
    if (name === 't') {
      if (timestampText !== undefined || !DECIMAL_DIGITS.test(text)) {
        return { ok: false, reason: 'malformed_header' };
      }
      timestampText = text;
    } else if (name === 'signature' && SHA256_HEX.test(text)) {
      // Checked first: Buffer.from(x, 'hex') silently stops at the first non-hex character.
      signatures.push(Buffer.from(text, 'hex'));
    }
  }
  if (timestampText === undefined || signatures.length === 0) {
    return { ok: false, reason: 'malformed_header' };
  }
  return parsed(timestampText, signatures);
}

function parsed(timestampText: string, signatures: Buffer[]): ParseSignatureHeaderResult {
  return { ok: true, header: { timestamp: Number(timestampText), timestampText, signatures } };
}

const TIMESTAMP_COMPONENT = /^\s*t\s*=/;

/**
 * Splits a header value that joins several copies of the header (HTTP API and function URLs join
 * a repeated header with commas) into one group per `t` component, each to be parsed and
 * checked on its own. Components before the first `t` belong to the first group, so a single
 * header with its components in any order stays one group. A value with at most one `t`, or one
 * too long to read, is returned whole.
 *
 * @param value - a header value, possibly joined from several copies
 */
export function splitSignatureGroups(value: string): string[] {
  // The shape the service sends has one `t`: decided by one match instead of a split.
  if (value.length > MAX_SIGNATURE_HEADER_LENGTH || CANONICAL_HEADER.test(value)) return [value];
  const components = value.split(',');
  const groups: string[][] = [];
  for (const component of components) {
    const last = groups.at(-1);
    if (last === undefined || (TIMESTAMP_COMPONENT.test(component) && last.some(isTimestamp))) {
      groups.push([component]);
    } else {
      last.push(component);
    }
  }
  return groups.length <= 1 ? [value] : groups.map((group) => group.join(','));
}

function isTimestamp(component: string): boolean {
  return TIMESTAMP_COMPONENT.test(component);
}
