/**
 * Outcome of {@link squashJson}. `ascii` says the text is all ASCII, found on the way: its UTF-8
 * bytes are then its Latin-1 bytes, which Node writes without the UTF-8 encoding pass that costs
 * about as much as hashing them.
 */
export type SquashResult = { ok: true; text: string; ascii: boolean } | { ok: false };

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
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_T = 0x74;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// The inside of a string up to its closing quote: runs of characters other than the quote, a
// backslash or a control character (which JSON forbids raw inside strings), between valid
// escapes. Written as runs between escapes, so there is only one way to match a text and a
// failed match backtracks linearly. The escapes per match are bounded so that the engine's
// backtracking stack stays small whatever the input; a string with more is matched in parts.
const stringContent = (plain: string): string =>
  String.raw`${plain}*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})${plain}*){0,1024}`;
const STRING_CONTENT = stringContent(String.raw`[^"\\\u0000-\u001f]`);
const STRING_CONTENT_RUN = new RegExp(STRING_CONTENT, 'y');
// The same with only ASCII characters between escapes: a match proves the string ASCII, and a
// non-ASCII character stops it like an invalid one, to be crossed by STRING_CONTENT_RUN.
const ASCII_STRING_CONTENT = stringContent(String.raw`[\u0020\u0021\u0023-\u005b\u005d-\u007f]`);
const ASCII_STRING_CONTENT_RUN = new RegExp(ASCII_STRING_CONTENT, 'y');
const LAST_ASCII = 0x7f;

// A native shortcut runs before the tokenizer, for texts up to COMPACT_MAX_LENGTH characters.
// Beyond that length it is skipped: the regular-expression engine's backtracking stack grows
// with the number of tokens and would overflow (a RangeError) at some millions of them.
const COMPACT_MAX_LENGTH = 1 << 20;

// A JSON text without any whitespace between tokens, nested at most COMPACT_DEPTH containers
// deep, as one regular expression: RFC 8259's grammar with the recursion unrolled that many
// times. Every text it matches is valid JSON and already squashed, so the common body (compact,
// as PHP's json_encode writes it, three levels deep per the spec) is checked by one native match
// instead of a walk in JavaScript. Anything else fails the match: whitespace, deeper nesting, or
// an invalid text, which the tokenizer then rejects.
//
// Linear: every alternative and repetition is decided by its first character (strings are
// written as plain runs between escapes), so a failed match backtracks over each character at
// most a few times.
//
// Three levels: the spec's event_booked payload (body, `data`, `user`). The expression doubles
// in size per level (the object and the array form each hold the level below), and so does its
// one-time compilation at first use: about 3 KB of pattern and 2-4 ms of CPU at depth 3, twice
// that at depth 4. A deeper compact body is read by the tokenizer instead, correctly and at the
// speed it had before this shortcut.
const COMPACT_DEPTH = 3;
const COMPACT_NUMBER_OR_LITERAL = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null`;
// Tried first: a match also proves the text ASCII, which the sender most likely writes (PHP's
// json_encode escapes everything else), so the hash can skip the UTF-8 encoding pass. A failed
// match costs about a pass over the text up to the failure (the engine gives back every run it
// matched), so a text whose first ASCII_PROBE_LENGTH characters already hold a non-ASCII one
// goes straight to the general form: the envelope (event, source, the booking's name) comes first.
const COMPACT_ASCII_DOCUMENT = compactDocument(`"${ASCII_STRING_CONTENT}"`);
const COMPACT_DOCUMENT = compactDocument(`"${STRING_CONTENT}"`);
const ASCII_PROBE_LENGTH = 256;
const NON_ASCII = /[\u0080-\uffff]/;

function compactDocument(string: string): RegExp {
  return new RegExp(
    `^${compactValue(string, `(?:${string}|${COMPACT_NUMBER_OR_LITERAL})`, COMPACT_DEPTH)}$`,
  );
}

/** A value nested at most `depth` containers deep; a `,` must be followed by another entry. */
function compactValue(string: string, scalar: string, depth: number): string {
  if (depth === 0) return scalar;
  const inner = compactValue(string, scalar, depth - 1);
  const object = String.raw`\{(?:${string}:${inner}(?:,(?=")|(?=\})))*\}`;
  const array = String.raw`\[(?:${inner}(?:,(?!\])|(?=\])))*\]`;
  return `(?:${scalar}|${object}|${array})`;
}

/**
 * Removes the whitespace between JSON tokens (space, tab, CR, LF) and keeps everything else
 * exactly as written: string contents, escapes such as `\/` and `\u00e9`, number spellings such
 * as `12.50` or `1e3`, key order and duplicate keys. This is the "squashed" text the service
 * signs (spec section 5.2, step 2); a `JSON.parse` + `JSON.stringify` round trip would change all
 * of those and break genuine signatures.
 *
 * The text is checked against the JSON grammar on the way: anything other than exactly one JSON
 * value surrounded by optional whitespace is rejected. A byte-order mark is not JSON whitespace
 * and is rejected too. A compact text is checked by one native match (see COMPACT_DOCUMENT
 * above); the tokenizer reads the rest in one pass.
 *
 * @param text - The body as received, decoded as UTF-8.
 * @returns The squashed text (the input itself when it holds no whitespace between tokens), or
 *   `{ ok: false }` when it is not a single JSON value.
 */
export function squashJson(text: string): SquashResult {
  // A character at or below U+0020 among the first two is whitespace between tokens in all but a
  // top-level string starting with a space: a pretty-printed text skips both forms, which would
  // fail, and goes straight to the tokenizer, which reads every text correctly anyway.
  const compact =
    text.length <= COMPACT_MAX_LENGTH &&
    !(text.charCodeAt(0) <= SPACE || text.charCodeAt(1) <= SPACE);
  if (compact) {
    const probablyAscii = !NON_ASCII.test(text.slice(0, ASCII_PROBE_LENGTH));
    if (probablyAscii && COMPACT_ASCII_DOCUMENT.test(text)) return { ok: true, text, ascii: true };
    if (COMPACT_DOCUMENT.test(text)) return { ok: true, text, ascii: false };
  }
  // Pretty-printed, deep, very long or invalid texts: the tokenizer has the last word. (A native
  // shortcut for pretty-printed texts, removing whitespace at token edges with one replace and
  // checking the result with COMPACT_DOCUMENT, was slower than the tokenizer: `npm run bench`,
  // 64 KB pretty ASCII, 2.2x against 1.6x the HMAC.)
  const squasher = new Squasher(text);
  return squasher.readDocument()
    ? { ok: true, text: squasher.squashed(), ascii: squasher.ascii }
    : { ok: false };
}

/**
 * One pass over a JSON text that checks its grammar and drops the whitespace between tokens.
 *
 * The nesting lives in an explicit stack, not in recursion, so 100,000 nested arrays cost memory
 * proportional to the depth and never overflow the call stack.
 *
 * Walking every character in JavaScript costs more than the HMAC itself, so string contents,
 * which are most of a body, are crossed by one native regular-expression match per string
 * (escapes included); only the characters between strings are looked at one by one.
 */
class Squasher {
  private readonly text: string;
  private position = 0;
  // Text before `keptFrom` is already squashed into `head`; -1 until whitespace is first dropped.
  private head = '';
  private keptFrom = -1;
  /** Whether every string read so far is ASCII (outside strings, valid JSON is ASCII anyway). */
  ascii = true;

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
    let from = this.position + 1;
    for (;;) {
      // ASCII runs until a non-ASCII character turns up; the general runs from there on.
      const run = this.ascii ? ASCII_STRING_CONTENT_RUN : STRING_CONTENT_RUN;
      run.lastIndex = from;
      run.test(text);
      const stop = run.lastIndex;
      const code = text.charCodeAt(stop);
      if (code === QUOTE) {
        this.position = stop + 1;
        return true;
      }
      if (code > LAST_ASCII && this.ascii) {
        this.ascii = false;
        from = stop;
        continue;
      }
      // Stopped at a backslash after some progress: the bound on escapes per match was reached.
      // Anything else is a raw control character, an invalid escape or the end of the text.
      if (code !== BACKSLASH || stop === from) return false;
      from = stop;
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
