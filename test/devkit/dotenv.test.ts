import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendDotEnv,
  ensureWebhookSecret,
  findWebhookSecret,
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
