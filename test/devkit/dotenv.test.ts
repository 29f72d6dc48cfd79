import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendDotEnv,
  DOTENV_MAX_BYTES,
  DotEnvError,
  ensureWebhookSecret,
  findWebhookSecret,
  parseDotEnv,
  readDotEnv,
} from '../../devkit/dotenv.js';

let dir: string;
let dotEnvPath: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dotenv-'));
  dotEnvPath = join(dir, '.env');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Function: readDotEnv', () => {
  it('returns no variables when the file does not exist', async () => {
    // Act
    const variables = await readDotEnv(dotEnvPath);

    // Assess
    expect(variables).toEqual({});
  });

  it('reads variables, skipping comments and unquoting values', async () => {
    // Prepare
    await writeFile(dotEnvPath, '# local\nPORT=3001\nWEBHOOK_SECRET="s3cr=t"\n');

    // Act
    const variables = await readDotEnv(dotEnvPath);

    // Assess
    expect(variables).toEqual({ PORT: '3001', WEBHOOK_SECRET: 's3cr=t' });
  });
});

describe('Function: parseDotEnv', () => {
  it('reads every form a dotenv file commonly holds', () => {
    // Prepare
    const text = [
      '\uFEFF# the local run',
      '',
      '   ',
      'PLAIN=abc',
      'export EXPORTED=1',
      '  SPACED  =  two words  ',
      'EMPTY=',
      'COMMENTED=value # a note',
      'BLANK_COMMENT= # nothing here',
      "SINGLE='a # b \\n $x'",
      'DOUBLE="line\\nnext \\"q\\" \\\\" # note',
      'BACKTICK=`a=b`',
      'EQUALS=a=b==',
      'CRLF=windows\r',
      'LAST=no newline',
    ].join('\n');

    // Act
    const parsed = parseDotEnv(text);

    // Assess
    expect(
      parsed.ok && Object.fromEntries([...parsed.variables].map(([n, v]) => [n, v.value])),
    ).toEqual({
      PLAIN: 'abc',
      EXPORTED: '1',
      SPACED: 'two words',
      EMPTY: '',
      COMMENTED: 'value',
      BLANK_COMMENT: '',
      SINGLE: 'a # b \\n $x',
      DOUBLE: 'line\nnext "q" \\',
      BACKTICK: 'a=b',
      EQUALS: 'a=b==',
      CRLF: 'windows',
      LAST: 'no newline',
    });
  });

  it.each([
    ['a line without =', 'PORT=1\noops\nWEBHOOK_SECRET=k', 2, "no '='"],
    ['a name with a hyphen', 'MY-KEY=1', 1, 'not a variable name'],
    ['a name starting with a digit', '1KEY=1', 1, 'not a variable name'],
    ['an empty name', '=value', 1, 'not a variable name'],
    ['an unterminated double quote', 'A=1\nB="abc\nC=2', 2, 'unterminated "'],
    ['an unterminated single quote', "A='abc", 1, "unterminated '"],
    ['text after the closing quote', 'A="abc"def', 1, 'text after the closing "'],
    ['an unknown escape in double quotes', 'A="C:\\dir"', 1, 'in double quotes must be'],
    ['a # inside an unquoted value', 'WEBHOOK_SECRET=ab#cd', 1, 'a # inside an unquoted value'],
    ['a # right after the =', 'WEBHOOK_SECRET=#abcd', 1, 'a # inside an unquoted value'],
    ['a name set twice', 'A=1\n\nA=2', 3, 'A is set again (first on line 1)'],
    ['a name set twice, once exported', 'export A=1\nA=2', 2, 'A is set again'],
  ])('refuses %s, naming the line and the reason', (_, text, line, reason) => {
    // Act
    const parsed = parseDotEnv(text);

    // Assess
    expect(parsed).toEqual({ ok: false, line, reason: expect.stringContaining(reason) });
  });

  it('never puts a value from the file into its reason', () => {
    // Prepare: a key pasted on a line of its own, and one with a # in it
    const key = 'k7Qe2mZ9xV4pL8sN1bT6wR3yH5jC0dFa';
    const reasons = [
      `${key}`,
      `WEBHOOK_SECRET=${key}#x`,
      `WEBHOOK_SECRET="${key}`,
      `${key}-x=1`,
    ].map((text) => {
      const parsed = parseDotEnv(text);
      return parsed.ok ? '' : parsed.reason;
    });

    // Assess
    expect(reasons.every((reason) => reason !== '' && !reason.includes('k7Qe2m'))).toBe(true);
  });
});

describe('Function: readDotEnv (refusing)', () => {
  it.each([
    ['a directory', () => mkdir(dotEnvPath), 'it is a directory (EISDIR)'],
    [
      'larger than a .env can be',
      () => writeFile(dotEnvPath, `# ${'x'.repeat(DOTENV_MAX_BYTES)}\n`),
      `it holds more than ${DOTENV_MAX_BYTES} bytes`,
    ],
  ])(
    'throws a DotEnvError (exit 3) naming the file and why when it is %s',
    async (_, make, why) => {
      // Prepare
      await make();

      // Act
      const reading = readDotEnv(dotEnvPath);

      // Assess
      await expect(reading).rejects.toThrow(DotEnvError);
      await expect(reading).rejects.toMatchObject({
        exitStatus: 3,
        message: `cannot read ${dotEnvPath}: ${why}`,
      });
    },
  );

  it('throws a DotEnvError (exit 3) naming the file, the line and the reason', async () => {
    // Prepare: the finding: a line without = that Node's parser glues to the next variable
    await writeFile(dotEnvPath, 'oops\nWEBHOOK_SECRET=abc\n');

    // Act
    const reading = readDotEnv(dotEnvPath);

    // Assess
    await expect(reading).rejects.toThrow(DotEnvError);
    await expect(reading).rejects.toMatchObject({
      exitStatus: 3,
      message: `cannot read ${dotEnvPath}, line 1: no '=': each line must be NAME=value, a # comment or blank`,
    });
  });
});

describe('Function: appendDotEnv', () => {
  it('adds a line after existing content that lacks a final newline', async () => {
    // Prepare
    await writeFile(dotEnvPath, 'PORT=3001');

    // Act
    await appendDotEnv(dotEnvPath, 'WEBHOOK_SECRET', 'abc');

    // Assess
    expect(await readFile(dotEnvPath, 'utf8')).toBe('PORT=3001\nWEBHOOK_SECRET=abc\n');
  });

  it('leaves a file the user created readable by everyone owner-only once it holds a key', async () => {
    // Prepare: what `echo 'ENDPOINTS=eu,us' >> .env` creates
    await writeFile(dotEnvPath, 'ENDPOINTS=eu,us\n', { mode: 0o644 });

    // Act
    await appendDotEnv(dotEnvPath, 'WEBHOOK_SECRET_EU', 'abc');

    // Assess
    expect((await stat(dotEnvPath)).mode & 0o777).toBe(0o600);
  });
});

describe('Function: findWebhookSecret', () => {
  it('prefers the environment over the file and trims the key', async () => {
    // Prepare
    await writeFile(dotEnvPath, 'WEBHOOK_SECRET=from-file\n');

    // Act
    const found = await findWebhookSecret({ WEBHOOK_SECRET: ' from-env\n' }, dotEnvPath);

    // Assess
    expect(found).toEqual({
      secret: 'from-env',
      variable: 'WEBHOOK_SECRET',
      source: 'environment',
    });
  });

  it('treats a blank environment value as unset and falls back to the file', async () => {
    // Prepare
    await writeFile(dotEnvPath, 'WEBHOOK_SECRET=from-file\n');

    // Act
    const found = await findWebhookSecret({ WEBHOOK_SECRET: '  ' }, dotEnvPath);

    // Assess
    expect(found).toEqual({ secret: 'from-file', variable: 'WEBHOOK_SECRET', source: 'dotenv' });
  });
});

describe('Function: ensureWebhookSecret', () => {
  it('generates a 32-byte hex key once, stores it owner-only, and reuses it afterwards', async () => {
    // Act
    const first = await ensureWebhookSecret({}, dotEnvPath);
    const second = await ensureWebhookSecret({}, dotEnvPath);

    // Assess
    expect(first.source).toBe('generated');
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toEqual({ secret: first.secret, variable: 'WEBHOOK_SECRET', source: 'dotenv' });
    expect(await readFile(dotEnvPath, 'utf8')).toBe(`WEBHOOK_SECRET=${first.secret}\n`);
    expect((await stat(dotEnvPath)).mode & 0o777).toBe(0o600);
  });
});

describe('Function: ensureWebhookSecret (never over a key)', () => {
  it.each([
    ['holds a key behind a line it cannot read', 'oops\nWEBHOOK_SECRET=the-senders-key\n', 1],
    ['holds a key with a # in it', 'WEBHOOK_SECRET=the-senders#key\n', 1],
    ['names WEBHOOK_SECRET with a blank value', 'PORT=3001\nWEBHOOK_SECRET=\n', 2],
  ])(
    'refuses, naming the line, and leaves the file as it was when it %s',
    async (_, text, line) => {
      // Prepare
      await writeFile(dotEnvPath, text);

      // Act
      const ensuring = ensureWebhookSecret({}, dotEnvPath);

      // Assess
      await expect(ensuring).rejects.toThrow(DotEnvError);
      await expect(ensuring).rejects.toThrow(`${dotEnvPath}, line ${line}:`);
      expect(await readFile(dotEnvPath, 'utf8')).toBe(text);
    },
  );
});

describe('Function: ensureWebhookSecret (an endpoint key)', () => {
  it("appends a missing endpoint's key under its own variable and leaves the other lines alone", async () => {
    // Prepare
    await writeFile(dotEnvPath, 'ENDPOINTS=eu,us\nWEBHOOK_SECRET_US=us-key');

    // Act
    const us = await ensureWebhookSecret({}, dotEnvPath, 'WEBHOOK_SECRET_US');
    const eu = await ensureWebhookSecret({}, dotEnvPath, 'WEBHOOK_SECRET_EU');

    // Assess
    expect(us).toEqual({ secret: 'us-key', variable: 'WEBHOOK_SECRET_US', source: 'dotenv' });
    expect(eu).toMatchObject({ variable: 'WEBHOOK_SECRET_EU', source: 'generated' });
    expect(await readFile(dotEnvPath, 'utf8')).toBe(
      `ENDPOINTS=eu,us\nWEBHOOK_SECRET_US=us-key\nWEBHOOK_SECRET_EU=${eu.secret}\n`,
    );
  });
});
