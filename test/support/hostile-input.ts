/** Text every {@link LOG_INJECTIONS} entry carries, so a test can find where it ended up. */
export const FORGED_MARKER = 'forged-7e1c';

/**
 * Attempts to forge a log line or a log field from request data: line breaks of every kind, a
 * JSON fragment that closes the current string and adds fields, ANSI escape sequences that erase
 * or overwrite a terminal line, format specifiers, NUL, and escapes written as plain text.
 */
export const LOG_INJECTIONS: readonly string[] = [
  `x\n{"level":"ERROR","message":"${FORGED_MARKER}"}`,
  `x\r\n{"level":"ERROR","message":"${FORGED_MARKER}"}\r\n`,
  `x\r{"level":"ERROR","message":"${FORGED_MARKER}"}`,
  `","level":"ERROR","message":"${FORGED_MARKER}","status":200,"outcome":"queued`,
  `\u001b[2K\u001b[1A\u001b[31m${FORGED_MARKER}\u001b[0m\u001b]0;title\u0007`,
  `x\u2028{"level":"ERROR","message":"${FORGED_MARKER}"}\u2029y`,
  `x\u0085${FORGED_MARKER}\u000b\u000c`,
  `%s %d %j %o %% ${FORGED_MARKER}`,
  `${FORGED_MARKER}\u0000\\n\\u000a{"level":"ERROR"}`,
];

/**
 * `depth` nested JSON arrays around `0`, e.g. `[[0]]` for 2; with `balanced: false` the last
 * closing bracket is missing.
 *
 * @param depth - how many arrays
 * @param options - whether the text is well-formed
 */
export function nestedArrays(depth: number, options: { readonly balanced?: boolean } = {}): string {
  const closing = ']'.repeat(options.balanced === false ? depth - 1 : depth);
  return `${'['.repeat(depth)}0${closing}`;
}
