import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../devkit/terminal-text.js';
import { terminalControlsIn } from '../support/terminal-controls.js';

describe('Function: terminalSafe', () => {
  it('shows an escape sequence that would set the title, erase the line and print a fake one, instead of obeying it', () => {
    // Act
    const shown = terminalSafe('Eve\u001b]0;PWNED\u0007\u001b[2K\r\u001b[31mfake line');

    // Assess
    expect(shown).toBe('Eve\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d\\u001b[31mfake line');
  });

  it.each([
    ['every C0 control', '\u0000\u0008\t\n\u001f', '\\u0000\\u0008\\u0009\\u000a\\u001f'],
    [
      'DEL and the C1 controls, CSI among them',
      '\u007f\u0080\u009b31m\u009f',
      '\\u007f\\u0080\\u009b31m\\u009f',
    ],
    [
      'the bidi embeddings and overrides',
      'a\u202a\u202b\u202c\u202d\u202eb',
      'a\\u202a\\u202b\\u202c\\u202d\\u202eb',
    ],
    ['the bidi isolates', 'a\u2066\u2067\u2068\u2069b', 'a\\u2066\\u2067\\u2068\\u2069b'],
  ])('escapes %s', (_, text, shown) => {
    // Act & Assess
    expect(terminalSafe(text)).toBe(shown);
  });

  it('keeps printable text, accents, emoji, backslashes and the marks around the bidi range as they are', () => {
    // Prepare
    const text = 'Zoë Müller 予約 🎟 C:\\path \u00a0\u200f\u202f\u206a';

    // Act & Assess
    expect(terminalSafe(text)).toBe(text);
  });

  it('keeps a JSON line the same JSON: its escapes are JSON escapes', () => {
    // Prepare
    const value = { event: 'x\u009b2K\u202e\r', body: '{"a":"\\u001b"}' };

    // Act
    const line = terminalSafe(JSON.stringify(value));

    // Assess
    expect(JSON.parse(line)).toEqual(value);
    expect(terminalControlsIn(line)).toEqual([]);
  });
});
