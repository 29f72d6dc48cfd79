import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isoTimeOption,
  readFileOption,
  wholeCountOption,
  wholeSecondsOption,
} from '../../devkit/cli-options.js';
import { UsageError } from '../../devkit/tool-io.js';
import { MAX_BODY_BYTES_LIMIT } from '../../lambda/contract/settings.js';

describe('Function: wholeSecondsOption', () => {
  it('reads decimal digits and falls back when the option is absent', () => {
    // Act & Assess
    expect(wholeSecondsOption('--now', '1716000000', 5)).toBe(1716000000);
    expect(wholeSecondsOption('--now', '0', 5)).toBe(0);
    expect(wholeSecondsOption('--now', undefined, 5)).toBe(5);
  });

  it.each(['', '-1', '1.5', '1e9', ' 12', 'abc', '1234567890123456'])(
    'rejects %j with a UsageError naming the flag',
    (text) => {
      // Act & Assess
      expect(() => wholeSecondsOption('--tolerance', text, 300)).toThrow(UsageError);
      expect(() => wholeSecondsOption('--tolerance', text, 300)).toThrow(
        `--tolerance must be a whole number of seconds, got '${text}'`,
      );
    },
  );
});

describe('Function: isoTimeOption', () => {
  it('reads an ISO 8601 time with Z or an offset as that instant', () => {
    // Act & Assess
    expect(isoTimeOption('--from', '2026-11-27T09:00:00Z').toISOString()).toBe(
      '2026-11-27T09:00:00.000Z',
    );
    expect(isoTimeOption('--from', '2026-11-27T11:00+02:00').toISOString()).toBe(
      '2026-11-27T09:00:00.000Z',
    );
  });

  it('requires the option', () => {
    // Act & Assess
    expect(() => isoTimeOption('--to', undefined)).toThrow('--to is required');
  });

  it.each(['2026-11-27T09:00:00', '2026-11-27', '2026-11-27 09:00:00Z', 'yesterday', ''])(
    'rejects %j (no zone, no time, not ISO 8601) naming the flag',
    (text) => {
      // Act & Assess
      expect(() => isoTimeOption('--from', text)).toThrow(UsageError);
      expect(() => isoTimeOption('--from', text)).toThrow(
        `--from must be an ISO 8601 time with a zone, e.g. 2026-11-27T09:00:00Z, got '${text}'`,
      );
    },
  );

  it.each([
    ['2026-02-30T00:00:00Z', '2026-02 has days 01 to 28'],
    ['2028-02-30T00:00:00Z', '2028-02 has days 01 to 29'],
    ['2100-02-29T00:00:00Z', '2100-02 has days 01 to 28'],
    ['2026-04-31T12:00:00+02:00', '2026-04 has days 01 to 30'],
    ['2026-13-10T09:00:00Z', 'there is no month 13'],
    ['2026-11-00T09:00:00Z', '2026-11 has days 01 to 30'],
    ['2026-11-27T24:00:00Z', 'hours are 00 to 23'],
    ['2026-11-27T09:60Z', 'minutes and seconds are 00 to 59'],
    ['2026-11-27T09:00:60Z', 'minutes and seconds are 00 to 59'],
    ['2026-11-27T09:00:00+02:60', '+02:60 is no time zone offset'],
  ])('rejects %j, which no calendar or clock has, naming the value: %s', (text, why) => {
    // Act & Assess
    expect(() => isoTimeOption('--from', text)).toThrow(
      new UsageError(`--from must be a real time, got '${text}': ${why}`),
    );
  });

  it('reads February 29 of a leap year, and of 2000', () => {
    // Act & Assess
    expect(isoTimeOption('--to', '2028-02-29T23:59:59Z').toISOString()).toBe(
      '2028-02-29T23:59:59.000Z',
    );
    expect(isoTimeOption('--to', '2000-02-29T00:00:00Z').toISOString()).toBe(
      '2000-02-29T00:00:00.000Z',
    );
  });
});

describe('Function: wholeCountOption', () => {
  it('reads a count from 1 and is undefined when the option is absent', () => {
    // Act & Assess
    expect(wholeCountOption('--max', '1', 'messages')).toBe(1);
    expect(wholeCountOption('--max', '250', 'messages')).toBe(250);
    expect(wholeCountOption('--max', undefined, 'messages')).toBeUndefined();
  });

  it.each(['', '0', '-1', '1.5', '1e3', ' 12', 'all', '0012', '1234567890'])(
    'rejects %j with a UsageError naming the flag and the unit',
    (text) => {
      // Act & Assess
      expect(() => wholeCountOption('--max', text, 'messages')).toThrow(
        new UsageError(`--max must be a whole number of messages from 1, got '${text}'`),
      );
    },
  );
});

describe('Function: readFileOption', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-options-'));
    await writeFile(join(dir, 'body.json'), Buffer.from([0x7b, 0x7d, 0x0a]));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the exact bytes of the file, relative to the user directory', async () => {
    // Act
    const bytes = await readFileOption('--body-file', 'body.json', dir);

    // Assess
    expect([...bytes]).toEqual([0x7b, 0x7d, 0x0a]);
  });

  it('reads a body of the largest size a receiver accepts', async () => {
    // Prepare
    await writeFile(join(dir, 'largest.json'), Buffer.alloc(MAX_BODY_BYTES_LIMIT, 0x20));

    // Act
    const bytes = await readFileOption('--body-file', 'largest.json', dir);

    // Assess
    expect(bytes.byteLength).toBe(MAX_BODY_BYTES_LIMIT);
  });

  it.each([
    ['the option is absent', undefined, '--body-file is required'],
    ['the file does not exist', 'missing.json', 'cannot read --body-file missing.json (ENOENT)'],
    ['the file is a directory', '.', 'cannot read --body-file . (EISDIR)'],
    [
      'the file holds more than a receiver accepts',
      '/dev/zero',
      `--body-file /dev/zero holds more than ${MAX_BODY_BYTES_LIMIT} bytes, the largest body a receiver accepts`,
    ],
  ])('throws a UsageError when %s', async (_, path, message) => {
    // Act
    const reading = readFileOption('--body-file', path, dir);

    // Assess
    await expect(reading).rejects.toThrow(UsageError);
    await expect(reading).rejects.toThrow(message);
  });
});
