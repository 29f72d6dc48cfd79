/** Outcome of {@link squashJson}. */
export type SquashResult = { ok: true; text: string } | { ok: false };

// Character codes the tokenizer compares against (charCodeAt is the fastest way to walk a string).
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const UPPER_A = 0x41;
const UPPER_E = 0x45;
const UPPER_F = 0x46;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_A = 0x61;
const LOWER_B = 0x62;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// What the tokenizer expects next. The nesting lives in an explicit stack, not in recursion, so
// 100,000 nested arrays cost memory proportional to the depth and never overflow the call stack.
const EXPECT_VALUE = 0;
const EXPECT_VALUE_OR_CLOSE = 1; // just after `[`
const EXPECT_KEY = 2;
const EXPECT_KEY_OR_CLOSE = 3; // just after `{`
const EXPECT_COLON = 4;
const AFTER_VALUE = 5;

/**
 * Removes the whitespace between JSON tokens (space, tab, CR, LF) and keeps everything else
 * exactly as written: string contents, escapes such as `\/` and `\u00e9`, number spellings such
 * as `12.50` or `1e3`, key order and duplicate keys. This is the "squashed" text the service
 * signs (spec section 5.2, step 2); a `JSON.parse` + `JSON.stringify` round trip would change all
 * of those and break genuine signatures.
 *
 * The text is checked against the JSON grammar in the same single pass: anything other than
 * exactly one JSON value surrounded by optional whitespace is rejected. A byte-order mark is not
 * JSON whitespace and is rejected too.
 *
 * @param text - The body as received, decoded as UTF-8.
 * @returns The squashed text (the input itself when it holds no whitespace between tokens), or
 *   `{ ok: false }` when it is not a single JSON value.
 */
export function squashJson(text: string): SquashResult {
  const length = text.length;
  const closers: number[] = [];
  let state = EXPECT_VALUE;
  let squashed = '';
  let keptFrom = 0;
  let removedWhitespace = false;
  let i = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === SPACE || code === LF || code === CR || code === TAB) {
      squashed += text.slice(keptFrom, i);
      i = skipWhitespace(text, i + 1);
      keptFrom = i;
      removedWhitespace = true;
      continue;
    }
    if (state === EXPECT_VALUE_OR_CLOSE || state === EXPECT_KEY_OR_CLOSE) {
      // Just after `[` or `{`: the matching closer makes an empty container, anything else
      // starts its first element.
      if (code === closers[closers.length - 1]) {
        closers.pop();
        state = AFTER_VALUE;
        i++;
        continue;
      }
      state = state === EXPECT_VALUE_OR_CLOSE ? EXPECT_VALUE : EXPECT_KEY;
    }
    switch (state) {
      case EXPECT_VALUE:
        if (code === OPEN_BRACE) {
          closers.push(CLOSE_BRACE);
          state = EXPECT_KEY_OR_CLOSE;
          i++;
        } else if (code === OPEN_BRACKET) {
          closers.push(CLOSE_BRACKET);
          state = EXPECT_VALUE_OR_CLOSE;
          i++;
        } else {
          i = scanScalar(text, i, code);
          state = AFTER_VALUE;
        }
        break;
      case EXPECT_KEY:
        i = code === QUOTE ? scanString(text, i + 1) : -1;
        state = EXPECT_COLON;
        break;
      case EXPECT_COLON:
        if (code !== COLON) return { ok: false };
        state = EXPECT_VALUE;
        i++;
        break;
      default: {
        // AFTER_VALUE: a `,` or the closer of the innermost container; nothing after the last one.
        const closer = closers[closers.length - 1];
        if (closer === undefined) return { ok: false };
        if (code === COMMA) {
          state = closer === CLOSE_BRACE ? EXPECT_KEY : EXPECT_VALUE;
        } else if (code === closer) {
          closers.pop();
        } else {
          return { ok: false };
        }
        i++;
      }
    }
    if (i === -1) return { ok: false };
  }
  if (state !== AFTER_VALUE || closers.length > 0) return { ok: false };
  return { ok: true, text: removedWhitespace ? squashed + text.slice(keptFrom) : text };
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  for (;;) {
    const code = text.charCodeAt(i);
    if (code !== SPACE && code !== LF && code !== CR && code !== TAB) return i;
    i++;
  }
}

/** Reads a string, number or literal starting at `start`; returns the index after it, or -1. */
function scanScalar(text: string, start: number, code: number): number {
  if (code === QUOTE) return scanString(text, start + 1);
  if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) return scanNumber(text, start);
  const literal = code === LOWER_T ? 'true' : code === LOWER_F ? 'false' : 'null';
  return text.startsWith(literal, start) ? start + literal.length : -1;
}

/** Reads string contents after the opening quote; returns the index after the closing one, or -1. */
function scanString(text: string, from: number): number {
  const length = text.length;
  let i = from;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i + 1;
    if (code === BACKSLASH) {
      const escaped = text.charCodeAt(i + 1);
      if (escaped === LOWER_U) {
        if (!isHex4(text, i + 2)) return -1;
        i += 6;
      } else if (isSingleCharacterEscape(escaped)) {
        i += 2;
      } else {
        return -1;
      }
    } else if (code < SPACE) {
      // JSON forbids raw control characters (a raw newline, for instance) inside strings.
      return -1;
    } else {
      i++;
    }
  }
  return -1;
}

function isSingleCharacterEscape(code: number): boolean {
  return (
    code === QUOTE ||
    code === BACKSLASH ||
    code === SLASH ||
    code === LOWER_B ||
    code === LOWER_F ||
    code === LOWER_N ||
    code === LOWER_R ||
    code === LOWER_T
  );
}

function isHex4(text: string, from: number): boolean {
  for (let i = from; i < from + 4; i++) {
    const code = text.charCodeAt(i);
    const isDigit = code >= DIGIT_0 && code <= DIGIT_9;
    const isHexLetter =
      (code >= UPPER_A && code <= UPPER_F) || (code >= LOWER_A && code <= LOWER_F);
    if (!isDigit && !isHexLetter) return false;
  }
  return true;
}

/** Reads `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; returns the index after it, or -1. */
function scanNumber(text: string, start: number): number {
  let i = text.charCodeAt(start) === MINUS ? start + 1 : start;
  const first = text.charCodeAt(i);
  if (first === DIGIT_0) {
    i++;
  } else if (first >= DIGIT_1 && first <= DIGIT_9) {
    i = skipDigits(text, i + 1);
  } else {
    return -1;
  }
  if (text.charCodeAt(i) === DOT) {
    const afterDot = skipDigits(text, i + 1);
    if (afterDot === i + 1) return -1;
    i = afterDot;
  }
  const exponent = text.charCodeAt(i);
  if (exponent === LOWER_E || exponent === UPPER_E) {
    const sign = text.charCodeAt(i + 1);
    const digitsFrom = sign === PLUS || sign === MINUS ? i + 2 : i + 1;
    const afterDigits = skipDigits(text, digitsFrom);
    if (afterDigits === digitsFrom) return -1;
    i = afterDigits;
  }
  return i;
}

function skipDigits(text: string, from: number): number {
  let i = from;
  for (;;) {
    const code = text.charCodeAt(i);
    // Written so that NaN (past the end of the text) also stops the loop.
    if (!(code >= DIGIT_0 && code <= DIGIT_9)) return i;
    i++;
  }
}

// In a squashed body a backslash only ever starts an escape, so reading escape pairs left to
// right keeps `\\/` (an escaped backslash, then a slash) apart from `\/` (an escaped slash).
const ESCAPE_OR_SLASH = /\\.|\//g;
const ESCAPE = /\\./g;

/**
 * Writes every `/` inside a string as `\/` (PHP's `json_encode` default), leaving `\\/` and all
 * other escapes alone.
 *
 * @param squashed - Output of {@link squashJson}: the rewrite relies on it being valid JSON.
 */
export function escapeSlashes(squashed: string): string {
  return squashed.replace(ESCAPE_OR_SLASH, (token) => (token === '/' ? '\\/' : token));
}

/**
 * Writes every `\/` escape as a plain `/`, leaving `\\/` and all other escapes alone.
 *
 * @param squashed - Output of {@link squashJson}: the rewrite relies on it being valid JSON.
 */
export function unescapeSlashes(squashed: string): string {
  return squashed.replace(ESCAPE, (token) => (token === '\\/' ? '/' : token));
}
