import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main as send } from '../../cli/send.js';
import { main as sign } from '../../cli/sign.js';
import { main as verify } from '../../cli/verify.js';
import { NoKeyError, UsageError } from '../../devkit/exit-status.js';
import { readEndpointKey } from '../../devkit/signing-key.js';
import { runTool } from '../devkit/run-tool.js';
import { senderVector } from '../lambda/core/sender-vectors.js';
import { scratchDir } from '../support/scratch-dir.js';

// A real PHP-signed call; its key is endpoint us's key in the .env that npm start would write.
const compact = senderVector('php-default-compact');
const dir = scratchDir('endpoint-flag');

beforeAll(async () => {
  await writeFile(
    join(dir(), '.env'),
    `ENDPOINTS=eu,us\nWEBHOOK_SECRET_EU=eu-key\nWEBHOOK_SECRET_US=${compact.key}\n`,
  );
  await writeFile(join(dir(), 'body.json'), compact.body);
});

describe('Function: readEndpointKey', () => {
  it('reads WEBHOOK_SECRET_<NAME> from the environment before .env', async () => {
    // Act
    const key = await readEndpointKey('eu', {
      env: { WEBHOOK_SECRET_EU: ' env-eu-key\n' },
      projectDir: dir(),
    });

    // Assess
    expect(key).toEqual({ key: 'env-eu-key', raw: 'env-eu-key', source: 'WEBHOOK_SECRET_EU' });
  });

  it('reads the key npm start saved in .env when the environment has none', async () => {
    // Act
    const key = await readEndpointKey('us', { env: {}, projectDir: dir() });

    // Assess
    expect(key.key).toBe(compact.key);
  });

  it.each([
    ['ENDPOINTS does not list it', 'apac', {}, "unknown endpoint 'apac': ENDPOINTS lists eu, us"],
    [
      "the environment's ENDPOINTS, which wins over .env, does not list it",
      'eu',
      { ENDPOINTS: 'apac' },
      "unknown endpoint 'eu': ENDPOINTS lists apac",
    ],
  ])('refuses with a usage error naming the endpoint when %s', async (_, name, env, message) => {
    // Act
    const read = readEndpointKey(name, { env, projectDir: dir() });

    // Assess
    await expect(read).rejects.toThrow(UsageError);
    await expect(read).rejects.toThrow(message);
  });

  it('refuses with a no-key error (exit 3) naming the variable when the endpoint has no key', async () => {
    // Act
    const read = readEndpointKey('apac', { env: { ENDPOINTS: 'apac' }, projectDir: dir() });

    // Assess
    await expect(read).rejects.toThrow(NoKeyError);
    await expect(read).rejects.toThrow("no key for endpoint 'apac': set WEBHOOK_SECRET_APAC");
  });

  it("reads an endpoint's key by its name alone when ENDPOINTS is set nowhere, as npm start saved it", async () => {
    // Prepare: `ENDPOINTS=eu npm start` wrote the key; this terminal has no ENDPOINTS
    const project = join(dir(), 'endpoints-in-npm-start-only');
    await mkdir(project);
    await writeFile(join(project, '.env'), 'WEBHOOK_SECRET_EU=eu-key\n');

    // Act
    const key = await readEndpointKey('eu', { env: {}, projectDir: project });
    const unknown = readEndpointKey('us', { env: {}, projectDir: project });

    // Assess
    expect(key).toEqual({ key: 'eu-key', raw: 'eu-key', source: 'WEBHOOK_SECRET_EU' });
    await expect(unknown).rejects.toThrow(
      "unknown endpoint 'us': ENDPOINTS is not set (in the environment or .env)",
    );
  });

  it('says ENDPOINTS is not set when neither the environment nor .env has it', async () => {
    // Act
    const read = readEndpointKey('eu', { env: {}, projectDir: join(dir(), 'elsewhere') });

    // Assess
    await expect(read).rejects.toThrow(
      "unknown endpoint 'eu': ENDPOINTS is not set (in the environment or .env)",
    );
  });
});

describe('Flag: --endpoint', () => {
  it("sign prints the header the real sender sent with the endpoint's key", async () => {
    // Act
    const run = await runTool(
      sign,
      ['--body-file', 'body.json', '--t', String(compact.t), '--endpoint', 'us'],
      { cwd: dir() },
    );

    // Assess
    expect(run).toEqual({ status: 0, out: [compact.header], err: [] });
  });

  it("verify accepts the call with its endpoint's key and refuses it with another endpoint's", async () => {
    // Prepare
    const args = ['--header', compact.header, '--body-file', 'body.json', '--now', `${compact.t}`];

    // Act
    const onUs = await runTool(verify, [...args, '--endpoint', 'us'], { cwd: dir() });
    const onEu = await runTool(verify, [...args, '--endpoint', 'eu'], { cwd: dir() });

    // Assess
    expect(onUs.status).toBe(0);
    expect(onUs.out[0]).toBe('valid (form: as_sent)');
    expect(onEu.status).toBe(1);
    expect(onEu.out[0]).toBe('invalid: signature_mismatch');
  });

  it.each([
    [sign, 'sign', ['--body-file', 'body.json', '--endpoint', 'apac']],
    [
      verify,
      'verify',
      ['--header', compact.header, '--body-file', 'body.json', '--endpoint', 'apac'],
    ],
    [send, 'send', ['--endpoint', 'apac']],
  ])('%#: %s exits 2 naming an endpoint ENDPOINTS does not list', async (main, name, args) => {
    // Act
    const run = await runTool(main, args, { cwd: dir() });

    // Assess
    expect(run.status).toBe(2);
    expect(run.err).toEqual([
      `unknown endpoint 'apac': ENDPOINTS lists eu, us (see npm run ${name} -- --help)`,
    ]);
    expect(run.out).toEqual([]);
  });

  it.each([
    [sign, ['--body-file', 'body.json', '--endpoint', 'eu', '--secret-file', 'body.json']],
    [send, ['--endpoint', 'eu', '--secret-id', 'webhook/eu']],
  ])('%#: refuses --endpoint next to another key option (exit 2)', async (main, args) => {
    // Act
    const run = await runTool(main, args, { cwd: dir() });

    // Assess
    expect(run.status).toBe(2);
    expect(run.err[0]).toMatch(/--endpoint.*not both/);
  });

  it("send refuses a --url that is not the endpoint's (exit 2), before sending anything", async () => {
    // Act
    const run = await runTool(
      send,
      ['--endpoint', 'eu', '--url', 'http://127.0.0.1:1/webhook/us'],
      { cwd: dir() },
    );

    // Assess
    expect(run.status).toBe(2);
    expect(run.err[0]).toContain(
      "--url http://127.0.0.1:1/webhook/us is not a URL of endpoint 'eu': its path must end in /webhook/eu",
    );
  });

  it('send posts to /webhook/<name> on PORT when no --url is given', async () => {
    // Act: nothing listens on port 1, so the failure names the URL it tried.
    const run = await runTool(send, ['--endpoint', 'eu'], { cwd: dir(), env: { PORT: '1' } });

    // Assess: a network failure, exit 4
    expect(run.status).toBe(4);
    expect(run.err[0]).toContain('POST http://127.0.0.1:1/webhook/eu failed');
  });

  it.each([
    ['send', send],
    ['sign', sign],
    ['verify', verify],
  ])('%s --help documents --endpoint', async (_, main) => {
    // Act
    const run = await runTool(main, ['--help']);

    // Assess
    expect(run.out.join('\n')).toMatch(/--endpoint NAME\s+\S/);
  });
});
