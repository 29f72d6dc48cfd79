import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSourceAllowlist } from '../../lambda/contract/source-allowlist.js';
import { type BannerConfig, type BannerReceiver, banner } from '../../local/start-banner.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROJECT = '/path/to/service-webhook-receiver';
const DOTENV = `${PROJECT}/.env`;

/** A first `npm start` with every default, as the README shows it. */
const FIRST_START: BannerReceiver = {
  endpoints: [
    {
      name: undefined,
      url: 'http://127.0.0.1:3000/webhook',
      key: { secret: 'not-shown', variable: 'WEBHOOK_SECRET', source: 'generated' },
    },
  ],
  queues: {
    queueUrl: 'http://127.0.0.1:9324/123456789012/webhook-events',
    dlqUrl: 'http://127.0.0.1:9324/123456789012/webhook-events-dlq',
    restored: 0,
    discarded: 0,
  },
  archive: { endpoint: 'http://127.0.0.1:9325', bucket: 'webhook-archive' },
  inspectorUrl: 'http://127.0.0.1:3000/_inspector',
  ignored: [],
  allowedSources: undefined,
};

const DEFAULTS: BannerConfig = {
  endpoints: undefined,
  inspector: 'auto',
  host: '127.0.0.1',
  stateDir: `${PROJECT}/.local/queues`,
  fresh: false,
};

/** The banner a document quotes after "The first start prints". */
function quotedBanner(path: string): string {
  const text = readFileSync(resolve(ROOT, path), 'utf8');
  const quoted = /The first\s+start prints[^\n]*\n\n```text\n([\s\S]*?)\n```/.exec(text)?.[1];
  if (quoted === undefined) throw new Error(`${path} quotes no banner`);
  return quoted;
}

/** The value of one row, e.g. `Inspector`, or `undefined` when the banner has no such row. */
function rowOf(text: string, label: string): string | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`  ${label}:`));
  return line?.slice(`  ${label}:`.length).trim();
}

describe('Function: banner', () => {
  it.each(['README.md', 'docs/local-run.md'])(
    'prints the first start exactly as %s quotes it',
    (path) => {
      // Act
      const printed = banner(FIRST_START, DEFAULTS, DOTENV);

      // Assess
      expect(printed).toBe(quotedBanner(path));
    },
  );

  it('says which addresses the allowlist lets in, and when the tools of this machine are not among them', () => {
    // Prepare
    const allowlist = (entries: string[]) => {
      const parsed = parseSourceAllowlist(entries);
      if (!parsed.ok) throw new Error(parsed.problem);
      return parsed.allowlist;
    };

    // Act
    const outside = banner(
      { ...FIRST_START, allowedSources: allowlist(['203.0.113.0/24']) },
      DEFAULTS,
      DOTENV,
    );
    const inside = banner(
      { ...FIRST_START, allowedSources: allowlist(['127.0.0.1', '203.0.113.7']) },
      DEFAULTS,
      DOTENV,
    );

    // Assess
    expect(rowOf(outside, 'Allowlist')).toBe(
      "203.0.113.0/24 only (ALLOWED_SOURCE_IPS): calls from other addresses are answered 403 source_not_allowed, this machine's own calls from 127.0.0.1 included",
    );
    expect(rowOf(inside, 'Allowlist')).toBe(
      '127.0.0.1/32, 203.0.113.7/32 only (ALLOWED_SOURCE_IPS): calls from other addresses are answered 403 source_not_allowed',
    );
    expect(rowOf(banner(FIRST_START, DEFAULTS, DOTENV), 'Allowlist')).toBeUndefined();
  });

  it.each([
    [{ inspector: 'off' }, 'off (INSPECTOR=off)'],
    [{ host: '0.0.0.0' }, 'off: HOST=0.0.0.0 is not loopback (INSPECTOR=on serves it there too)'],
  ] as const)('says the inspector is off with %o, and why', (settings, row) => {
    // Act
    const printed = banner(
      { ...FIRST_START, inspectorUrl: undefined },
      { ...DEFAULTS, ...settings },
      DOTENV,
    );

    // Assess
    expect(rowOf(printed, 'Inspector')).toBe(row);
  });

  it('says how many messages --fresh discarded, below the line it always printed', () => {
    // Act
    const printed = banner(
      { ...FIRST_START, queues: { ...FIRST_START.queues, discarded: 3 } },
      { ...DEFAULTS, fresh: true },
      DOTENV,
    );

    // Assess
    expect(printed).toContain(
      [
        `  Messages:     started empty (--fresh); kept in ${PROJECT}/.local/queues`,
        '  Discarded:    3 messages from earlier runs (--fresh), dead-letter queue included',
      ].join('\n'),
    );
    expect(rowOf(banner(FIRST_START, DEFAULTS, DOTENV), 'Discarded')).toBeUndefined();
  });
});
