/**
 * How deep a JSON text nests, read without parsing it. Pure and import-free: the inspector page
 * bundles it for the browser, and the signature diagnosis uses it in Node.js.
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether the brackets and braces outside strings of a JSON text nest deeper than `limit`, in
 * one pass without recursion (valid or not: an unbalanced text counts what opened). The text may
 * be a string or its UTF-8 bytes: every character this looks for is ASCII, the same code in both.
 */
export function nestedDeeperThan(text: string | Uint8Array, limit: number): boolean {
  const codeAt =
    typeof text === 'string'
      ? (index: number) => text.charCodeAt(index)
      : (index: number) => text[index];
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = codeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth++;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
