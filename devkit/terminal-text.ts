/**
 * The tools' one rule for printing text they did not write (a webhook body's fields, a queued
 * message's attributes, an archive record, a server's answer): characters that would drive the
 * terminal are shown as escapes instead.
 * @module
 */

/**
 * Characters a terminal acts on instead of showing: the C0 controls (ESC starts the sequences that
 * set a window title, erase a line or colour text; BEL, BS, CR and LF move or sound), DEL, the C1
 * controls (U+009B is CSI on a terminal that reads 8-bit controls), and the bidi embeddings,
 * overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which reorder the rest of a line
 * as it is shown.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` safe to print on a terminal: each character of {@link TERMINAL_CONTROLS} becomes its
 * visible escape (ESC as `\u001b`, CR as `\u000d`, U+202E as `\u202e`), everything else is kept,
 * so a name typed with an escape sequence in it is shown, not obeyed, and the rest of the line
 * stays readable. Backslashes are kept too: the escapes are JSON's own, so a JSON line stays the
 * same JSON.
 *
 * @param text - text that came from outside the tool
 */
export function terminalSafe(text: string): string {
  return text.replace(
    TERMINAL_CONTROLS,
    (control) => `\\u${control.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * `text` of several lines safe to print on a terminal: each line as {@link terminalSafe} shows it,
 * the line breaks kept, for a message that quotes what the user typed or what a process printed.
 *
 * @param text - lines separated by `\n`
 */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}
