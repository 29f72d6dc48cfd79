import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoKeyError, UsageError } from '../../devkit/exit-status.js';
import {
  KEY_FILE_MAX_BYTES,
  readSigningKey,
  refuseKeyArguments,
} from '../../devkit/signing-key.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signing-key-'));
  await writeFile(join(dir, 'key.txt'), '  file-key\n');
  await writeFile(join(dir, 'blank.txt'), ' \n');
  await writeFile(join(dir, 'dotenv.txt'), 'WEBHOOK_SECRET=k7Qe2mZ9xV4pL8sN\n');
  await writeFile(join(dir, 'exported.txt'), 'export WEBHOOK_SECRET_EU_WEST = k7Qe2mZ9xV4pL8sN');
  await writeFile(join(dir, 'two-lines.txt'), 'k7Qe2mZ9xV4pL8sN\r\nsecond\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Function: readSigningKey', () => {
  it('reads WEBHOOK_SECRET, trimmed, and keeps the raw value', async () => {
    // Act
    const key = await readSigningKey(undefined, {
      env: { WEBHOOK_SECRET: ' env-key\r\n' },
      cwd: dir,
    });

    // Assess
    expect(key).toEqual({ key: 'env-key', raw: ' env-key\r\n', source: 'WEBHOOK_SECRET' });
  });

  it.each([
    ['base64 with padding', 'c2VjcmV0LWtleS1mb3ItaG1hYw=='],
    ['base32 with padding', 'ONSWG4TFOQ======'],
    ['hex', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['a whsec_ prefix', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a passphrase with spaces', 'correct horse battery staple'],
  ])('reads a key file holding %s as the key', async (_, key) => {
    // Prepare
    await writeFile(join(dir, 'genuine.txt'), `${key}\n`);

    // Act
    const read = await readSigningKey('genuine.txt', { env: {}, cwd: dir });

    // Assess
    expect(read.key).toBe(key);
  });

  it('prefers --secret-file, relative to the user directory, over WEBHOOK_SECRET', async () => {
    // Act
    const key = await readSigningKey('key.txt', { env: { WEBHOOK_SECRET: 'env-key' }, cwd: dir });

    // Assess
    expect(key).toEqual({ key: 'file-key', raw: '  file-key\n', source: '--secret-file' });
  });

  it.each([
    ['no key at all', undefined, {}, /^no key: set WEBHOOK_SECRET or pass --secret-file PATH/],
    [
      'a blank WEBHOOK_SECRET',
      undefined,
      { WEBHOOK_SECRET: ' \t' },
      /^the key in WEBHOOK_SECRET is empty$/,
    ],
    ['a blank key file', 'blank.txt', {}, /^the key in --secret-file is empty$/],
    [
      'a .env line in the key file',
      'dotenv.txt',
      {},
      /^--secret-file holds a WEBHOOK_SECRET=… line/,
    ],
    [
      'an exported endpoint line',
      'exported.txt',
      {},
      /^--secret-file holds a WEBHOOK_SECRET=… line/,
    ],
    ['a key file of several lines', 'two-lines.txt', {}, /^--secret-file holds several lines/],
    [
      'a missing key file',
      'no-such-key',
      {},
      /^cannot read the --secret-file \(ENOENT\): give the path/,
    ],
    [
      'a key file without end',
      '/dev/zero',
      {},
      new RegExp(
        `^the --secret-file holds more than ${KEY_FILE_MAX_BYTES} bytes, more than any key`,
      ),
    ],
  ])('throws a NoKeyError (exit 3) for %s', async (_, secretFile, env, message) => {
    // Act
    const reading = readSigningKey(secretFile, { env, cwd: dir });

    // Assess
    await expect(reading).rejects.toThrow(NoKeyError);
    await expect(reading).rejects.toMatchObject({ exitStatus: 3 });
    await expect(reading).rejects.toThrow(message);
    await expect(reading).rejects.toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('k7Qe2m') }),
    );
  });

  it('never echoes the --secret-file value, which may be a key pasted by mistake', async () => {
    // Act
    const reading = readSigningKey('k7Qe2mZ9xV4pL8sN1bT6wR3yH5jC0dFa', { env: {}, cwd: dir });

    // Assess
    await expect(reading).rejects.toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('k7Qe2m') }),
    );
  });
});

describe('Function: refuseKeyArguments', () => {
  it.each([['--secret', 'x'], ['--secret=x'], ['--key', 'x'], ['--webhook-secret=x']])(
    'refuses %s',
    (...args) => {
      // Act & Assess
      expect(() => refuseKeyArguments(args)).toThrow(UsageError);
      expect(() => refuseKeyArguments(args)).toThrow(
        /is not accepted: a key on the command line leaks/,
      );
    },
  );

  it('lets other options through, including --secret-file', () => {
    // Act & Assess
    expect(() =>
      refuseKeyArguments(['--secret-file', 'k.txt', '--header', 'key=--key']),
    ).not.toThrow();
  });
});
