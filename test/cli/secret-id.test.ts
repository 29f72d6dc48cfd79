import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { main as sign } from '../../cli/sign.js';
import { main as verify } from '../../cli/verify.js';
import { NoKeyError } from '../../devkit/exit-status.js';
import { readSecretIdKey } from '../../devkit/signing-key.js';
import { runTool } from '../devkit/run-tool.js';
import { scratchFiles } from '../devkit/spawn-script.js';
import { senderVector } from '../lambda/core/sender-vectors.js';

// A real PHP-signed call; its key is stored in Secrets Manager in each form below.
const compact = senderVector('php-default-compact');
const secretsManager = mockClient(SecretsManagerClient);
const file = scratchFiles();

afterEach(() => {
  secretsManager.reset();
});
afterAll(() => {
  secretsManager.restore();
});

/** Serves `value` as the AWSCURRENT SecretString (or SecretBinary for bytes). */
function storeSecret(value: string | Uint8Array): void {
  secretsManager
    .on(GetSecretValueCommand)
    .resolves(typeof value === 'string' ? { SecretString: value } : { SecretBinary: value });
}

describe('Function: readSecretIdKey', () => {
  it.each([
    ['plain text', `${compact.key}\n`, {}],
    ['the key/value JSON the console stores', JSON.stringify({ webhook_secret: compact.key }), {}],
    [
      'a JSON object with SECRET_JSON_FIELD',
      JSON.stringify({ user: 'booking', signing_key: compact.key }),
      { SECRET_JSON_FIELD: 'signing_key' },
    ],
  ])('reads the key the receiver reads from %s', async (_, value, env) => {
    // Prepare
    storeSecret(value);

    // Act
    const read = await readSecretIdKey('webhook/key', { env, networkTimeoutMs: 5000 });

    // Assess
    expect(read).toEqual({ key: compact.key, raw: compact.key, source: '--secret-id' });
  });

  it.each([
    [
      'several fields and no SECRET_JSON_FIELD',
      JSON.stringify({ user: 'booking', signing_key: compact.key }),
      'webhook/key (AWSCURRENT): the value is a JSON object with fields "user", "signing_key" and not exactly one text field: set SECRET_JSON_FIELD to the field that holds the key',
    ],
    [
      'only SecretBinary',
      Uint8Array.from([1, 2, 3]),
      'webhook/key holds only SecretBinary in its AWSCURRENT version: the key must be a SecretString',
    ],
  ])('explains, naming fields and never a value, a secret with %s', async (_, value, message) => {
    // Prepare
    storeSecret(value);

    // Act
    const read = readSecretIdKey('webhook/key', { env: {}, networkTimeoutMs: 5000 });

    // Assess: no key (exit 3)
    await expect(read).rejects.toThrow(NoKeyError);
    await expect(read).rejects.toThrow(message);
  });
});

describe('Script: sign and verify with --secret-id', () => {
  it('signs with the key inside a key/value JSON secret, as the real sender did', async () => {
    // Prepare
    storeSecret(JSON.stringify({ webhook_secret: compact.key }));
    const body = await file('compact.json', compact.body);

    // Act
    const run = await runTool(sign, [
      '--body-file',
      body,
      '--t',
      String(compact.t),
      '--secret-id',
      'webhook/key',
    ]);

    // Assess
    expect(run).toEqual({ status: 0, out: [compact.header], err: [] });
  });

  it('verifies a real call with the key inside a key/value JSON secret', async () => {
    // Prepare
    storeSecret(JSON.stringify({ webhook_secret: compact.key }));
    const body = await file('verify.json', compact.body);

    // Act
    const run = await runTool(verify, [
      '--header',
      compact.header,
      '--body-file',
      body,
      '--now',
      String(compact.t),
      '--secret-id',
      'webhook/key',
    ]);

    // Assess
    expect(run).toEqual({ status: 0, out: ['valid (form: as_sent)'], err: [] });
  });

  it('exits 3 naming the fields when the JSON secret has several and no SECRET_JSON_FIELD', async () => {
    // Prepare
    storeSecret(JSON.stringify({ user: 'booking', signing_key: compact.key }));
    const body = await file('several.json', compact.body);

    // Act
    const run = await runTool(sign, ['--body-file', body, '--secret-id', 'webhook/key']);

    // Assess
    expect(run.status).toBe(3);
    expect(run.err.join('\n')).toContain('set SECRET_JSON_FIELD');
    expect(run.err.join('\n')).not.toContain(compact.key);
  });

  it('refuses --secret-id together with --secret-file', async () => {
    // Prepare
    const body = await file('both.json', compact.body);

    // Act
    const run = await runTool(sign, [
      '--body-file',
      body,
      '--secret-id',
      'webhook/key',
      '--secret-file',
      body,
    ]);

    // Assess
    expect(run.status).toBe(2);
    expect(run.err).toEqual([
      'give --secret-id or --secret-file, not both (see npm run sign -- --help)',
    ]);
  });
});
