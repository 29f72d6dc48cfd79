/** Outcome of {@link squashJson}. */
export type SquashResult = { ok: true; text: string } | { ok: false };

// Character codes the tokenizer compares against.
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

// The longest run of string characters that need no attention: anything but the closing quote,
// the start of an escape, or a control character (which JSON forbids raw inside strings).
// biome-ignore lint/suspicious/noControlCharactersInRegex: stopping at raw control characters is the point.
const PLAIN_STRING_RUN = /[^"\\\u0000-\u001f]*/y;

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
  const squasher = new Squasher(text);
  return squasher.readDocument() ? { ok: true, text: squasher.squashed() } : { ok: false };
}

/**
 * One pass over a JSON text that checks its grammar and drops the whitespace between tokens.
 *
 * The nesting lives in an explicit stack, not in recursion, so 100,000 nested arrays cost memory
 * proportional to the depth and never overflow the call stack.
 *
 * Walking every character in JavaScript costs more than the HMAC itself, so string contents,
 * which are most of a body, are crossed by one native regular-expression match per run of plain
 * characters (a string without escapes is one match); only the characters between strings and
 * the escapes are looked at one by one.
 */
class Squasher {
  private readonly text: string;
  private position = 0;
  // Text before `keptFrom` is already squashed into `head`; -1 until whitespace is first dropped.
  private head = '';
  private keptFrom = -1;

  constructor(text: string) {
    this.text = text;
  }

  /** The text without whitespace between tokens; the input itself when there was none. */
  squashed(): string {
    return this.keptFrom === -1 ? this.text : this.head + this.text.slice(this.keptFrom);
  }

  /** Reads exactly one value and then the end of the text; false when the text is not that. */
  readDocument(): boolean {
    const closers: number[] = [];
    for (;;) {
      // A value starts here.
      const code = this.nextToken();
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        const closer = code === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        this.position++;
        if (this.nextToken() !== closer) {
          closers.push(closer);
          if (closer === CLOSE_BRACE && !this.readKeyAndColon()) return false;
          continue;
        }
        this.position++;
      } else if (!this.readScalar(code)) {
        return false;
      }
      // A value has ended: close containers until a `,` announces the next value.
      for (;;) {
        const closer = closers[closers.length - 1];
        const next = this.nextToken();
        if (closer === undefined) return Number.isNaN(next);
        this.position++;
        if (next === COMMA) {
          if (closer === CLOSE_BRACE && !this.readKeyAndColon()) return false;
          break;
        }
        if (next !== closer) return false;
        closers.pop();
      }
    }
  }

  /** Reads `"key":` inside an object. */
  private readKeyAndColon(): boolean {
    if (this.nextToken() !== QUOTE || !this.readString()) return false;
    if (this.nextToken() !== COLON) return false;
    this.position++;
    return true;
  }

  /** Reads a string, number or literal whose first character is `code`. */
  private readScalar(code: number): boolean {
    if (code === QUOTE) return this.readString();
    const text = this.text;
    const start = this.position;
    if (code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9)) {
      this.position = scanNumber(text, start);
      return this.position !== -1;
    }
    const literal = code === LOWER_T ? 'true' : code === LOWER_F ? 'false' : 'null';
    this.position = start + literal.length;
    return text.startsWith(literal, start);
  }

  /** Reads a string from its opening quote to just after its closing quote. */
  private readString(): boolean {
    const text = this.text;
    let i = this.position + 1;
    for (;;) {
      PLAIN_STRING_RUN.lastIndex = i;
      PLAIN_STRING_RUN.test(text);
      const stop = PLAIN_STRING_RUN.lastIndex;
      const code = text.charCodeAt(stop);
      if (code === QUOTE) {
        this.position = stop + 1;
        return true;
      }
      // Anything else than an escape here is a raw control character or the end of the text.
      if (code !== BACKSLASH) return false;
      i = escapeEnd(text, stop);
      if (i === -1) return false;
    }
  }

  /** Steps over whitespace, dropping it, and returns the next character's code (NaN at the end). */
  private nextToken(): number {
    const text = this.text;
    const code = text.charCodeAt(this.position);
    // Every JSON whitespace character is <= U+0020, so one comparison clears most tokens.
    if (code > SPACE || !(code === SPACE || code === LF || code === CR || code === TAB))
      return code;
    let end = this.position + 1;
    for (;;) {
      const next = text.charCodeAt(end);
      if (next !== SPACE && next !== LF && next !== CR && next !== TAB) break;
      end++;
    }
    this.head += text.slice(Math.max(this.keptFrom, 0), this.position);
    this.keptFrom = end;
    this.position = end;
    return text.charCodeAt(end);
  }
}

/** Index after the escape whose backslash is at `backslash`, or -1 when it is not a JSON escape. */
function escapeEnd(text: string, backslash: number): number {
  const escaped = text.charCodeAt(backslash + 1);
  if (escaped === LOWER_U) return isHex4(text, backslash + 2) ? backslash + 6 : -1;
  return isSingleCharacterEscape(escaped) ? backslash + 2 : -1;
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
