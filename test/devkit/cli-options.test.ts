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

  it.each(['2026-11-27T09:00:00', '2026-11-27', '2026-13-40T09:00:00Z', 'yesterday', ''])(
    'rejects %j (no zone, no time, or no real date) naming the flag',
    (text) => {
      // Act & Assess
      expect(() => isoTimeOption('--from', text)).toThrow(UsageError);
      expect(() => isoTimeOption('--from', text)).toThrow(
        `--from must be an ISO 8601 time with a zone, e.g. 2026-11-27T09:00:00Z, got '${text}'`,
      );
    },
  );
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

  it.each([
    ['the option is absent', undefined, '--body-file is required'],
    ['the file does not exist', 'missing.json', 'cannot read --body-file missing.json (ENOENT)'],
  ])('throws a UsageError when %s', async (_, path, message) => {
    // Act
    const reading = readFileOption('--body-file', path, dir);

    // Assess
    await expect(reading).rejects.toThrow(UsageError);
    await expect(reading).rejects.toThrow(message);
  });
});
