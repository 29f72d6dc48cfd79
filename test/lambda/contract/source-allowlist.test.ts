import { describe, expect, it } from 'vitest';
import { parseSourceAllowlist } from '../../../lambda/contract/source-allowlist.js';

/** The allowlist of `entries`; fails the test when they are refused. */
function allowlistOf(entries: readonly string[]) {
  const parsed = parseSourceAllowlist(entries);
  if (!parsed.ok) throw new Error(`refused: ${parsed.entry} ${parsed.problem}`);
  return parsed.allowlist;
}

describe('Function: parseSourceAllowlist', () => {
  it('lets in exactly the addresses inside an IPv4 range', () => {
    // Prepare
    const allowlist = allowlistOf(['203.0.113.0/24']);

    // Assess
    expect(['203.0.113.0', '203.0.113.9', '203.0.113.255'].map(allowlist.allows)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['203.0.112.255', '203.0.114.0', '10.0.0.1'].map(allowlist.allows)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('lets in exactly the addresses inside an IPv6 range, however they are written', () => {
    // Prepare
    const allowlist = allowlistOf(['2001:db8:1234::/48']);

    // Assess
    expect(allowlist.allows('2001:db8:1234::1')).toBe(true);
    expect(allowlist.allows('2001:DB8:1234:ffff:0:0:0:1')).toBe(true);
    expect(allowlist.allows('2001:db8:1235::1')).toBe(false);
    expect(allowlist.allows('203.0.113.9')).toBe(false);
  });

  it('takes a bare address as a range of one, and says so in the ranges IAM gets', () => {
    // Prepare
    const allowlist = allowlistOf(['198.51.100.7', '2001:db8::7']);

    // Assess
    expect(allowlist.ranges).toEqual(['198.51.100.7/32', '2001:db8::7/128']);
    expect(allowlist.allows('198.51.100.7')).toBe(true);
    expect(allowlist.allows('198.51.100.8')).toBe(false);
    expect(allowlist.allows('2001:db8::7')).toBe(true);
    expect(allowlist.allows('2001:db8::8')).toBe(false);
  });

  it('matches an IPv4 address written IPv4-mapped, as a dual-stack socket reports it', () => {
    // Prepare
    const allowlist = allowlistOf(['127.0.0.0/8']);

    // Assess
    expect(allowlist.allows('::ffff:127.0.0.1')).toBe(true);
    expect(allowlist.allows('::ffff:128.0.0.1')).toBe(false);
  });

  it.each(['', 'unknown', '203.0.113.9, 10.0.0.1', '203.0.113.9:443', '203.0.113.0/24'])(
    'lets in no source that is not one address (%j)',
    (source) => {
      // Prepare
      const allowlist = allowlistOf(['0.0.0.0/0', '::/0']);

      // Assess
      expect(allowlist.allows(source)).toBe(false);
    },
  );

  it.each([
    [[], '', 'names no range: leave the setting out to let every source in'],
    [['203.0.113.0/24', ' '], '', 'is empty'],
    [['example.com'], 'example.com', 'is not an IPv4 or IPv6 address or range'],
    [['010.0.0.1'], '010.0.0.1', 'is not an IPv4 or IPv6 address or range'],
    [['fe80::1%eth0'], 'fe80::1%eth0', 'is not an IPv4 or IPv6 address or range'],
    [['10.0.0.0/8/8'], '10.0.0.0/8/8', 'is not an IPv4 or IPv6 address or range'],
    [['10.0.0.0/33'], '10.0.0.0/33', 'has prefix /33: an IPv4 prefix is 0 to 32'],
    [['2001:db8::/129'], '2001:db8::/129', 'has prefix /129: an IPv6 prefix is 0 to 128'],
    [['10.0.0.0/08'], '10.0.0.0/08', 'has prefix /08'],
    [['10.0.0.0/'], '10.0.0.0/', 'has prefix /:'],
    [
      ['203.0.113.7/24'],
      '203.0.113.7/24',
      'has bits set after its /24 prefix: write 203.0.113.0/24 for the range, or 203.0.113.7/32 for this one address',
    ],
    [
      ['2001:db8::1/32'],
      '2001:db8::1/32',
      'has bits set after its /32 prefix: write 2001:db8::/32 for the range, or 2001:db8::1/128 for this one address',
    ],
    [
      ['2001:db8:0:0:1::/64'],
      '2001:db8:0:0:1::/64',
      'has bits set after its /64 prefix: write 2001:db8::/64 for the range',
    ],
  ])('refuses %j, naming the entry at fault and why', (entries, entry, problem) => {
    // Act
    const parsed = parseSourceAllowlist(entries);

    // Assess
    expect(parsed).toMatchObject({ ok: false, entry });
    expect(parsed.ok ? '' : parsed.problem).toContain(problem);
  });
});
