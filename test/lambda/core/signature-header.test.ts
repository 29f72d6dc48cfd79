import { describe, expect, it } from 'vitest';
import {
  parseSignatureHeader,
  splitSignatureGroups,
} from '../../../lambda/core/signature-header.js';

const HEX = '27a70ff9fc25410c3246c8ae90e03fb93027c16871a1cc657fd1c4b66c6fb504';
const OTHER_HEX = 'ab'.repeat(32);

function hexOf(result: ReturnType<typeof parseSignatureHeader>): string[] {
  if (!result.ok) throw new Error(`expected a parsed header, got ${result.reason}`);
  return result.header.signatures.map((signature) => signature.toString('hex'));
}

describe('Function: parseSignatureHeader', () => {
  it('reads the header the service sends', () => {
    // Act
    const result = parseSignatureHeader(`t=1716000060,signature=${HEX}`);

    // Assess
    expect(result).toEqual({
      ok: true,
      header: {
        timestamp: 1716000060,
        timestampText: '1716000060',
        signatures: [Buffer.from(HEX, 'hex')],
      },
    });
  });

  it.each([
    ['components in reverse order', `signature=${HEX},t=1716000060`],
    ['spaces around components, names and values', ` t = 1716000060 , signature = ${HEX} `],
    ['unknown components', `v=2,t=1716000060,scheme=hmac-sha256,signature=${HEX},note`],
    ['a trailing comma', `t=1716000060,signature=${HEX},`],
    ['upper-case hex', `t=1716000060,signature=${HEX.toUpperCase()}`],
  ])('accepts %s', (_, value) => {
    // Act
    const result = parseSignatureHeader(value);

    // Assess
    expect(result).toMatchObject({ ok: true, header: { timestamp: 1716000060 } });
    expect(hexOf(result)).toEqual([HEX]);
  });

  it('keeps every well-formed signature in header order', () => {
    // Act
    const result = parseSignatureHeader(`t=1,signature=${HEX},signature=${OTHER_HEX}`);

    // Assess
    expect(hexOf(result)).toEqual([HEX, OTHER_HEX]);
  });

  it('skips signature components that are not 64 hex characters when another one is', () => {
    // Act
    const result = parseSignatureHeader(`t=1,signature=${HEX.slice(1)},signature=${OTHER_HEX}`);

    // Assess
    expect(hexOf(result)).toEqual([OTHER_HEX]);
  });

  it('keeps the timestamp digits exactly as sent, leading zeros included', () => {
    // Act
    const result = parseSignatureHeader(`t=0042,signature=${HEX}`);

    // Assess
    expect(result).toMatchObject({ ok: true, header: { timestamp: 42, timestampText: '0042' } });
  });

  it('reports a missing header as missing_header', () => {
    // Act
    const result = parseSignatureHeader(undefined);

    // Assess
    expect(result).toEqual({ ok: false, reason: 'missing_header' });
  });

  it.each([
    ['an empty value', ''],
    ['only spaces', '   '],
    ['no t', `signature=${HEX}`],
    ['no signature', 't=1716000060'],
    ['an empty signature', 't=1716000060,signature='],
    ['a signature of 63 hex characters', `t=1716000060,signature=${HEX.slice(1)}`],
    ['a signature of 65 hex characters', `t=1716000060,signature=${HEX}0`],
    ['a signature with a non-hex character at the end', `t=1716000060,signature=${HEX.slice(1)}g`],
    ['a signature with a non-hex character first', `t=1716000060,signature=z${HEX.slice(1)}`],
    ['a base64 signature', 't=1716000060,signature=J6cP+fwlQQwyRsiukOA/uTAnwWhxocxlf9HEtmxvtQQ='],
    ['a repeated t', `t=1716000060,t=1716000060,signature=${HEX}`],
    ['an empty t', `t=,signature=${HEX}`],
    ['a negative t', `t=-1716000060,signature=${HEX}`],
    ['a fractional t', `t=1716000060.5,signature=${HEX}`],
    ['a t in exponent notation', `t=1.7e9,signature=${HEX}`],
    ['a t with letters', `t=17160000x0,signature=${HEX}`],
    ['upper-case component names', `T=1716000060,SIGNATURE=${HEX}`],
    ['semicolons instead of commas', `t=1716000060;signature=${HEX}`],
    ['a signature name with a typo', `t=1716000060,sig=${HEX}`],
  ])('rejects %s as malformed_header', (_, value) => {
    // Act
    const result = parseSignatureHeader(value);

    // Assess
    expect(result).toEqual({ ok: false, reason: 'malformed_header' });
  });

  it('accepts a header of exactly the maximum length and rejects one character more', () => {
    // Prepare
    const base = `t=1716000060,signature=${HEX},pad=`;
    // SECURITY.md's limit: 1 KiB.
    const longest = base.padEnd(1024, 'x');

    // Act
    const atLimit = parseSignatureHeader(longest);
    const overLimit = parseSignatureHeader(`${longest}x`);

    // Assess
    expect(atLimit).toMatchObject({ ok: true });
    expect(overLimit).toEqual({ ok: false, reason: 'malformed_header' });
  });
});

describe('Function: splitSignatureGroups', () => {
  const sig = (digit: string) => digit.repeat(64);

  it.each([
    ['a single header', `t=1,signature=${sig('a')}`, [`t=1,signature=${sig('a')}`]],
    ['a single header with t last', `signature=${sig('a')},t=1`, [`signature=${sig('a')},t=1`]],
    [
      'two joined copies',
      `t=1,signature=${sig('a')},t=2,signature=${sig('b')}`,
      [`t=1,signature=${sig('a')}`, `t=2,signature=${sig('b')}`],
    ],
    [
      'two joined copies with spaces and several signatures',
      `t=1,signature=${sig('a')},signature=${sig('c')}, t=2,signature=${sig('b')}`,
      [`t=1,signature=${sig('a')},signature=${sig('c')}`, ` t=2,signature=${sig('b')}`],
    ],
    ['a value without t', 'garbage', ['garbage']],
  ])('splits %s into one group per t', (_, value, groups) => {
    // Act
    const result = splitSignatureGroups(value);

    // Assess
    expect(result).toEqual(groups);
  });
});
