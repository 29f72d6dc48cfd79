import { BlockList, isIP } from 'node:net';

/**
 * The source-address allowlist: the one parser of `ALLOWED_SOURCE_IPS` (receiver, local run) and
 * of the construct's `allowedSourceIps` (synth), so a list the stack deploys is one the receiver
 * accepts at cold start. Pure: `node:net` only.
 */

/** The `reason` of a call refused because its source address is outside the allowlist. */
export const SOURCE_NOT_ALLOWED = 'source_not_allowed';

/** The addresses a front door lets in. */
export interface SourceAllowlist {
  /**
   * Every range as `address/prefix`, in the order given; a bare address is a range of one
   * (`/32` or `/128`). IAM's `aws:SourceIp` takes them as they are.
   */
  readonly ranges: readonly string[];
  /**
   * Whether an address is inside one of the ranges. An IPv4 address written IPv4-mapped
   * (`::ffff:192.0.2.1`) matches the IPv4 ranges, and the reverse. Anything that is not an IP
   * address is outside.
   *
   * @param address - the front door's source address of a call
   */
  allows(address: string): boolean;
}

/** Result of {@link parseSourceAllowlist}: the allowlist, or the first entry at fault and why. */
export type SourceAllowlistResult =
  | { readonly ok: true; readonly allowlist: SourceAllowlist }
  | { readonly ok: false; readonly entry: string; readonly problem: string };

/**
 * Parses a list of IPv4 and IPv6 ranges in CIDR notation (`203.0.113.0/24`, `2001:db8::/32`) or
 * bare addresses. Refused: an empty list (it would refuse every call: leave the setting out to
 * let every source in), an empty entry, anything that is not an address (leading zeros, zone ids,
 * host names), a prefix out of range, and a range with bits set after its prefix
 * (`203.0.113.7/24`), which is most likely a typo for one address or the network.
 *
 * @param entries - the ranges, e.g. a comma-separated setting split at its commas
 */
export function parseSourceAllowlist(entries: readonly string[]): SourceAllowlistResult {
  if (entries.length === 0) {
    return {
      ok: false,
      entry: '',
      problem: 'names no range: leave the setting out to let every source in',
    };
  }
  const blockList = new BlockList();
  const ranges: string[] = [];
  for (const raw of entries) {
    const entry = raw.trim();
    const range = parseRange(entry);
    if (!range.ok) return { ok: false, entry, problem: range.problem };
    blockList.addSubnet(range.address, range.prefix, range.family === 4 ? 'ipv4' : 'ipv6');
    ranges.push(`${range.address}/${range.prefix}`);
  }
  return {
    ok: true,
    allowlist: {
      ranges,
      allows(address) {
        const family = isIP(address);
        return family !== 0 && blockList.check(address, family === 4 ? 'ipv4' : 'ipv6');
      },
    },
  };
}

type ParsedRange =
  | { readonly ok: true; readonly address: string; readonly family: 4 | 6; readonly prefix: number }
  | { readonly ok: false; readonly problem: string };

const EXAMPLES = '(e.g. 203.0.113.0/24, 2001:db8::/32 or 203.0.113.7)';

function parseRange(entry: string): ParsedRange {
  if (entry === '') return { ok: false, problem: `is empty: give an address or range ${EXAMPLES}` };
  const [address = '', prefixText, ...rest] = entry.split('/');
  // isIP accepts an IPv6 zone id (`fe80::1%eth0`); no front door reports one.
  const version = address.includes('%') ? 0 : isIP(address);
  if ((version !== 4 && version !== 6) || rest.length > 0) {
    return { ok: false, problem: `is not an IPv4 or IPv6 address or range ${EXAMPLES}` };
  }
  const family = version;
  const bits = family === 4 ? 32 : 128;
  if (prefixText === undefined) return { ok: true, address, family, prefix: bits };
  const prefix = /^(0|[1-9]\d{0,2})$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix <= bits)) {
    return {
      ok: false,
      problem: `has prefix /${prefixText}: an IPv${family} prefix is 0 to ${bits}`,
    };
  }
  const network = networkAddress(address, family, prefix);
  if (network !== undefined) {
    return {
      ok: false,
      problem: `has bits set after its /${prefix} prefix: write ${network}/${prefix} for the range, or ${address}/${bits} for this one address`,
    };
  }
  return { ok: true, address, family, prefix };
}

/**
 * The network address of `address/prefix` when `address` has bits set after the prefix, else
 * `undefined`. The one place that looks at bits: `BlockList` matches ranges but cannot say
 * whether an entry is a range's first address.
 */
function networkAddress(address: string, family: 4 | 6, prefix: number): string | undefined {
  const bytes = addressBytes(address, family);
  const masked = bytes.map((byte, index) => {
    const kept = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & (0xff << (8 - kept)) & 0xff;
  });
  if (masked.every((byte, index) => byte === bytes[index])) return undefined;
  if (family === 4) return masked.join('.');
  const groups = Array.from({ length: 8 }, (_, index) =>
    (((masked[index * 2] ?? 0) << 8) | (masked[index * 2 + 1] ?? 0)).toString(16),
  );
  // The URL parser writes an IPv6 address in its canonical, compressed form.
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

/** The bytes of an address `isIP` accepted, most significant first (4 or 16). */
function addressBytes(address: string, family: 4 | 6): number[] {
  if (family === 4) return address.split('.').map(Number);
  // An IPv4 tail (`::ffff:192.0.2.1`) is two groups; `::` stands for the zero groups left out.
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = tail
    ? `${address.slice(0, tail.index)}${((Number(tail[1]) << 8) | Number(tail[2])).toString(16)}:${((Number(tail[3]) << 8) | Number(tail[4])).toString(16)}`
    : address;
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = new Array<string>(8 - headGroups.length - restGroups.length).fill('0');
  return [...headGroups, ...zeros, ...restGroups].flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}
