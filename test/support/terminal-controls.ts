/**
 * The characters of `text` a terminal acts on instead of showing (C0, DEL, C1, the bidi
 * embeddings, overrides and isolates), as code points: spelled apart from the rule in
 * devkit/terminal-text.ts, so that a test checks the tools' output rather than repeat the rule.
 */
export function terminalControlsIn(text: string): string[] {
  return [...text].filter((character) => {
    const code = character.codePointAt(0) ?? 0;
    return (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    );
  });
}
