import { describe, expect, it } from 'vitest';
import { escapeSlashes, squashJson, unescapeSlashes } from '../../../lambda/core/canonical-json.js';

const isAscii = (text: string): boolean => !/[\u0080-\uffff]/.test(text);

describe('Function: squashJson', () => {
  it.each([
    ['spaces, LF and indentation', '{\n    "a": 1,\n    "b": [1, 2]\n}', '{"a":1,"b":[1,2]}'],
    ['CRLF line breaks', '{\r\n  "a": true\r\n}\r\n', '{"a":true}'],
    ['tabs', '{\n\t"a": {\n\t\t"b": null\n\t}\n}', '{"a":{"b":null}}'],
    ['whitespace around a top-level scalar', ' \n"x" \t', '"x"'],
    ['whitespace inside empty containers', '{ "a" : [ ] , "b" : { } }', '{"a":[],"b":{}}'],
    // Everything else is kept exactly as written:
    [
      'spaces inside strings',
      '{"a": "two  spaces , : [ ] { }"}',
      '{"a":"two  spaces , : [ ] { }"}',
    ],
    [
      'escapes as written',
      '{"a": "\\/ \\u00e9 \\u00E9 \\" \\\\ \\b\\f\\n\\r\\t"}',
      '{"a":"\\/ \\u00e9 \\u00E9 \\" \\\\ \\b\\f\\n\\r\\t"}',
    ],
    ['a string ending in a backslash', '[ "C:\\\\" , "x" ]', '["C:\\\\","x"]'],
    ['an escaped quote followed by spaces', '[ "say \\"  hi\\"  " ]', '["say \\"  hi\\"  "]'],
    [
      'number spellings',
      '[ 12.50 , 1e3 , -0.5E-2 , 0 , -0 , 1E+30 ]',
      '[12.50,1e3,-0.5E-2,0,-0,1E+30]',
    ],
    ['key order and duplicate keys', '{ "b": 1, "a": 2, "b": 3 }', '{"b":1,"a":2,"b":3}'],
    ['raw non-ASCII text', '{ "name": "Zoë €" }', '{"name":"Zoë €"}'],
    ['lone surrogate escapes', '[ "\\ud83d" ]', '["\\ud83d"]'],
  ])('removes the whitespace between tokens only: %s', (_, text, squashed) => {
    // Act
    const result = squashJson(text);

    // Assess
    expect(result).toEqual({ ok: true, text: squashed, ascii: isAscii(squashed) });
  });

  // The ASCII flag lets the verifier hash the text without a UTF-8 encoding pass: a wrong `true`
  // would hash a non-ASCII character as one byte and reject genuine calls.
  it.each([
    ['compact, at the start', '["é"]', false],
    ['compact, after a long ASCII prefix', `["${'a'.repeat(600)}","é"]`, false],
    ['compact, after escapes', `["${'\\u00e9'.repeat(2000)}é"]`, false],
    ['compact, in a key', `{"${'a'.repeat(300)}":1,"é":2}`, false],
    ['compact, escaped only', '["\\u00e9 \\/"]', true],
    ['pretty, after a long ASCII prefix', `[\n  "${'a'.repeat(600)}",\n  "x é"\n]`, false],
    ['pretty, after escapes', `[ "${'\\n'.repeat(2000)}€" ]`, false],
    ['pretty, all ASCII', '{\n  "a": "b c"\n}', true],
    ['deeper than the compact form, non-ASCII', '[[[[["€"]]]]]', false],
    ['deeper than the compact form, ASCII', '[[[[["e"]]]]]', true],
  ])('says whether the text is all ASCII: %s', (_, text, ascii) => {
    // Act
    const result = squashJson(text);

    // Assess
    expect(result).toMatchObject({ ok: true, ascii });
  });

  it('returns the very same string when there is no whitespace to remove', () => {
    // Prepare
    const text = '{"a":"b c","d":[1,true,null]}';

    // Act
    const result = squashJson(text);

    // Assess
    expect(result.ok && result.text).toBe(text);
  });

  it.each([
    ['an empty text', ''],
    ['only whitespace', ' \n\t'],
    ['an unclosed object', '{"a":1'],
    ['an unclosed array', '[1,2'],
    ['an extra closer', '{"a":1}}'],
    ['mismatched closers', '{"a":[1}]'],
    ['two values', '{"a":1} {"b":2}'],
    ['two scalars', '1 2'],
    ['two numbers in an array separated by a space only', '[ 1 2 ]'],
    ['a literal split by a space', '[ tr ue ]'],
    ['two strings separated by a space only', '[ "a" "b" ]'],
    ['a trailing comma in an array', '[1,]'],
    ['a leading comma in an array', '[,1]'],
    ['a trailing comma in an object', '{"a":1,}'],
    ['a missing colon', '{"a" 1}'],
    ['a missing value', '{"a":}'],
    ['a colon in an array', '["a":1]'],
    ['a non-string key', '{1:2}'],
    ['single quotes', "{'a':1}"],
    ['an unterminated string', '"abc'],
    ['an unknown escape', '"\\x41"'],
    ['a short unicode escape', '"\\u12"'],
    ['a unicode escape with a non-hex digit', '"\\u12g4"'],
    ['a backslash at the end', '"abc\\'],
    ['a raw line feed in a string', '"a\nb"'],
    ['a raw tab in a string', '"a\tb"'],
    ['a raw carriage return in a string', '"a\rb"'],
    ['another raw control character in a string', '"a\u0001b"'],
    ['a control character between tokens', '[1,\u000b2]'],
    ['a leading zero', '01'],
    ['a bare minus', '-'],
    ['a dot without digits after it', '1.'],
    ['a dot without digits before it', '.5'],
    ['a plus sign', '+1'],
    ['an exponent without digits', '1e'],
    ['an exponent sign without digits', '1e+'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['a truncated literal', 'tru'],
    ['a literal with a suffix', 'nulls'],
    ['a capitalized literal', 'True'],
    ['a byte-order mark', '\ufeff{}'],
    ['a non-breaking space between tokens', '{"a":\u00a01}'],
    ['a comment', '{"a":1 /* note */}'],
  ])('rejects %s', (_, text) => {
    // Act
    const result = squashJson(text);

    // Assess
    expect(result).toEqual({ ok: false });
  });

  it('squashes a pretty-printed text longer than a mebibyte', () => {
    // Prepare
    const value = { notes: Array.from({ length: 60_000 }, (_, i) => `note ${i}: a / b`) };
    const text = JSON.stringify(value, null, 4);

    // Act
    const result = squashJson(text);

    // Assess
    expect(text.length).toBeGreaterThan(1024 * 1024);
    expect(result).toEqual({ ok: true, text: JSON.stringify(value), ascii: true });
  });

  it('reads 100,000 nested arrays without overflowing the stack', () => {
    // Prepare
    const text = `${'[ '.repeat(100_000)}0${' ]'.repeat(100_000)}`;

    // Act
    const result = squashJson(text);

    // Assess
    expect(result).toEqual({
      ok: true,
      text: `${'['.repeat(100_000)}0${']'.repeat(100_000)}`,
      ascii: true,
    });
  });

  it('reads 100,000 nested objects and rejects them when one closer is missing', () => {
    // Prepare
    const open = '{"a":'.repeat(100_000);
    const close = '}'.repeat(100_000);

    // Act
    const complete = squashJson(`${open}null${close}`);
    const truncated = squashJson(`${open}null${close.slice(1)}`);

    // Assess
    expect(complete.ok).toBe(true);
    expect(truncated).toEqual({ ok: false });
  });
});

describe('Functions: escapeSlashes and unescapeSlashes', () => {
  // Each row: a squashed body, then the body with every string `/` written `\/`, then with every
  // `\/` written `/`. Escape pairs are read left to right, so `\\/` stays a backslash and a slash.
  it.each([
    [
      'plain slashes',
      '{"u":"https://x.test/a"}',
      '{"u":"https:\\/\\/x.test\\/a"}',
      '{"u":"https://x.test/a"}',
    ],
    ['escaped slashes', '["\\/"]', '["\\/"]', '["/"]'],
    ['an escaped backslash, then a slash', '["a\\\\/b"]', '["a\\\\\\/b"]', '["a\\\\/b"]'],
    [
      'an escaped backslash, then an escaped slash',
      '["a\\\\\\/b"]',
      '["a\\\\\\/b"]',
      '["a\\\\/b"]',
    ],
    ['a slash in a key', '{"a/b":1}', '{"a\\/b":1}', '{"a/b":1}'],
    ['a unicode escape of a slash', '["\\u002f"]', '["\\u002f"]', '["\\u002f"]'],
    ['other escapes', '["\\n\\u00e9\\""]', '["\\n\\u00e9\\""]', '["\\n\\u00e9\\""]'],
  ])('rewrite %s', (_, squashed, escaped, unescaped) => {
    // Act
    const results = [escapeSlashes(squashed), unescapeSlashes(squashed)];

    // Assess
    expect(results).toEqual([escaped, unescaped]);
  });
});
