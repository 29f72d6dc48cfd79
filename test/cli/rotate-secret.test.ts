import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  applyRotation,
  formatVersions,
  listSecretVersions,
  RotationError,
} from '../../cli/rotate-secret/rotation.js';
import { main } from '../../cli/rotate-secret.js';
import { runTool, type ToolRun } from '../devkit/run-tool.js';
import { FakeSecretStore, serveSecretStore } from '../support/secret-store.js';

const SECRET_ID = 'webhook-signing-key';

const secretsManager = mockClient(SecretsManagerClient);
let secret: FakeSecretStore;

beforeEach(() => {
  let day = 0;
  secret = new FakeSecretStore(() => new Date(Date.UTC(2026, 0, ++day)));
  secretsManager.reset();
  serveSecretStore(secretsManager, secret);
});

/** Version id -> its staging labels (sorted), for every version that still has one. */
function stagesOf(): Record<string, string[]> {
  return Object.fromEntries(
    secret
      .versions()
      .filter((version) => version.stages.length > 0)
      .map((version) => [version.versionId, [...version.stages].sort()]),
  );
}

/** The key stored in version `versionId`. */
function keyIn(versionId: string): string | Uint8Array | undefined {
  return secret.versions().find((version) => version.versionId === versionId)?.value;
}

const client = (): SecretsManagerClient => new SecretsManagerClient({ region: 'eu-west-1' });

describe('Function: applyRotation', () => {
  it('makes a put key AWSCURRENT and keeps the replaced key as AWSPREVIOUS', async () => {
    // Prepare
    secret.put('old-key');

    // Act
    const summary = await applyRotation(client(), SECRET_ID, { kind: 'put', key: 'new-key' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-1': ['AWSPREVIOUS'], 'version-2': ['AWSCURRENT'] });
    expect(keyIn('version-2')).toBe('new-key');
    expect(summary).toContain('version-2');
  });

  it('stages a key as AWSPENDING without touching AWSCURRENT', async () => {
    // Prepare
    secret.put('old-key');

    // Act
    await applyRotation(client(), SECRET_ID, { kind: 'stage', key: 'next-key' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-1': ['AWSCURRENT'], 'version-2': ['AWSPENDING'] });
    expect(keyIn('version-2')).toBe('next-key');
  });

  it('promotes the pending key to AWSCURRENT, the old current to AWSPREVIOUS, and drops AWSPENDING', async () => {
    // Prepare
    secret.put('oldest-key');
    secret.put('old-key');
    secret.put('next-key', ['AWSPENDING']);

    // Act
    await applyRotation(client(), SECRET_ID, { kind: 'promote' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-2': ['AWSPREVIOUS'], 'version-3': ['AWSCURRENT'] });
  });

  it('labels the new key at every step of a promotion (AWSCURRENT added before AWSPENDING is removed)', async () => {
    // Prepare
    secret.put('old-key');
    secret.put('next-key', ['AWSPENDING']);

    // Act
    await applyRotation(client(), SECRET_ID, { kind: 'promote' });

    // Assess
    const stages = secretsManager
      .commandCalls(UpdateSecretVersionStageCommand)
      .map((call) => call.args[0].input.VersionStage);
    expect(stages).toEqual(['AWSCURRENT', 'AWSPENDING']);
  });

  it('only removes AWSPENDING when the pending version is already current', async () => {
    // Prepare
    secret.put('key', ['AWSPENDING']);

    // Act
    await applyRotation(client(), SECRET_ID, { kind: 'promote' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-1': ['AWSCURRENT'] });
  });

  it('rejects a promotion when no version is AWSPENDING, changing nothing', async () => {
    // Prepare
    secret.put('old-key');

    // Act
    const promoted = applyRotation(client(), SECRET_ID, { kind: 'promote' });

    // Assess
    await expect(promoted).rejects.toBeInstanceOf(RotationError);
    await expect(promoted).rejects.toThrow('--stage KEYFILE');
    expect(secretsManager.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
    expect(stagesOf()).toEqual({ 'version-1': ['AWSCURRENT'] });
  });

  it('revokes the previous key by removing its AWSPREVIOUS label', async () => {
    // Prepare
    secret.put('old-key');
    secret.put('new-key');

    // Act
    await applyRotation(client(), SECRET_ID, { kind: 'revoke-previous' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-2': ['AWSCURRENT'] });
  });

  it('leaves only a put key accepted after a leak: put unstages a staged key, and revoking drops the previous one', async () => {
    // Prepare: a key staged for a switch-over that leaked with the current one
    secret.put('current-key');
    await applyRotation(client(), SECRET_ID, { kind: 'stage', key: 'staged-key' });

    // Act
    const put = await applyRotation(client(), SECRET_ID, { kind: 'put', key: 'new-key' });
    const afterPut = stagesOf();
    const revoked = await applyRotation(client(), SECRET_ID, { kind: 'revoke-previous' });

    // Assess
    expect(afterPut).toEqual({ 'version-1': ['AWSPREVIOUS'], 'version-3': ['AWSCURRENT'] });
    expect(put).toContain('Removed AWSPENDING from version version-2');
    expect(stagesOf()).toEqual({ 'version-3': ['AWSCURRENT'] });
    expect(revoked).toContain('Removed AWSPREVIOUS from version version-1');
  });

  it('revokes a staged key along with the previous one', async () => {
    // Prepare
    secret.put('old-key');
    secret.put('current-key');
    await applyRotation(client(), SECRET_ID, { kind: 'stage', key: 'staged-key' });

    // Act
    const summary = await applyRotation(client(), SECRET_ID, { kind: 'revoke-previous' });

    // Assess
    expect(stagesOf()).toEqual({ 'version-2': ['AWSCURRENT'] });
    expect(summary).toBe(
      'Removed AWSPREVIOUS from version version-1 and AWSPENDING from version version-3: the receiver stops accepting those keys at its next key refresh (SECRET_CACHE_SECONDS, sooner after a mismatch).',
    );
  });

  it('changes nothing and says so when there is no previous key to revoke', async () => {
    // Prepare
    secret.put('only-key');

    // Act
    const summary = await applyRotation(client(), SECRET_ID, { kind: 'revoke-previous' });

    // Assess
    expect(summary).toContain('nothing to revoke');
    expect(secretsManager.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
  });
});

describe('Function: listSecretVersions', () => {
  it('follows every page and lists the newest version first', async () => {
    // Prepare
    secretsManager
      .on(ListSecretVersionIdsCommand)
      .resolvesOnce({
        Versions: [
          { VersionId: 'a', VersionStages: ['AWSPREVIOUS'], CreatedDate: new Date(1_000) },
        ],
        NextToken: 'page-2',
      })
      .resolvesOnce({
        Versions: [{ VersionId: 'b', VersionStages: ['AWSCURRENT'], CreatedDate: new Date(2_000) }],
      });

    // Act
    const versions = await listSecretVersions(client(), SECRET_ID);

    // Assess
    expect(versions.map((version) => version.versionId)).toEqual(['b', 'a']);
    expect(
      secretsManager.commandCalls(ListSecretVersionIdsCommand)[1]?.args[0].input.NextToken,
    ).toBe('page-2');
  });
});

describe('Function: formatVersions', () => {
  it('prints one line per version with its stages and creation time', () => {
    // Act
    const text = formatVersions(SECRET_ID, [
      { versionId: 'b', stages: ['AWSCURRENT', 'AWSPENDING'], createdDate: new Date(0) },
      { versionId: 'a', stages: [], createdDate: undefined },
    ]);

    // Assess
    expect(text).toBe(
      [
        'Versions of webhook-signing-key:',
        '  b  AWSCURRENT,AWSPENDING  created 1970-01-01T00:00:00.000Z',
        '  a  (no stage)  created unknown',
      ].join('\n'),
    );
  });
});

describe('Function: main (rotate-secret)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rotate-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs rotate-secret in-process with the given stdin. */
  function rotate(args: string[], stdin = ''): Promise<ToolRun> {
    return runTool(main, args, { cwd: dir, stdin });
  }

  it('puts the trimmed key from KEYFILE and prints the stages of every version', async () => {
    // Prepare
    secret.put('old-key');
    await writeFile(join(dir, 'new.key'), '  new-key\n');

    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--put', 'new.key']);

    // Assess
    expect(result.status).toBe(0);
    expect(keyIn('version-2')).toBe('new-key');
    expect(result.out[1]).toMatch(
      /^Versions of webhook-signing-key:\n {2}version-2 {2}AWSCURRENT {2}created \S+\n {2}version-1 {2}AWSPREVIOUS {2}created \S+$/,
    );
  });

  it.each([
    ['--put', 'AWSCURRENT'],
    ['--stage', 'AWSPENDING'],
  ])(
    'keeps the JSON shape with %s: the same object with the key field replaced',
    async (option) => {
      // Prepare
      secret.put('{"webhook_secret":"old-key","note":7}');
      await writeFile(join(dir, 'json.key'), 'new-key\n');

      // Act
      const result = await rotate(['--secret-id', SECRET_ID, option, 'json.key']);

      // Assess
      expect(result.status).toBe(0);
      expect(keyIn('version-2')).toBe('{"webhook_secret":"new-key","note":7}');
    },
  );

  it('replaces the field SECRET_JSON_FIELD names when the JSON object has several', async () => {
    // Prepare
    secret.put('{"user":"booking","signing_key":"old-key"}');
    await writeFile(join(dir, 'named.key'), 'new-key');

    // Act
    const result = await runTool(main, ['--secret-id', SECRET_ID, '--put', 'named.key'], {
      cwd: dir,
      env: { SECRET_JSON_FIELD: 'signing_key' },
    });

    // Assess
    expect(result.status).toBe(0);
    expect(keyIn('version-2')).toBe('{"user":"booking","signing_key":"new-key"}');
  });

  it('changes nothing and names the fields when the JSON object has several and no SECRET_JSON_FIELD', async () => {
    // Prepare
    secret.put('{"user":"booking","signing_key":"old-key"}');
    await writeFile(join(dir, 'ambiguous.key'), 'new-key');

    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--put', 'ambiguous.key']);

    // Assess
    expect(result.status).toBe(1);
    expect(result.err).toEqual([
      'webhook-signing-key (AWSCURRENT): the value is a JSON object with fields "user", "signing_key" and not exactly one text field: set SECRET_JSON_FIELD to the field that holds the key; nothing was changed',
    ]);
    expect(keyIn('version-2')).toBeUndefined();
  });

  it('reads the key from stdin when KEYFILE is -', async () => {
    // Prepare
    secret.put('old-key');

    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--stage', '-'], 'piped-key\n');

    // Assess
    expect(result.status).toBe(0);
    expect(keyIn('version-2')).toBe('piped-key');
    expect(stagesOf()).toEqual({ 'version-1': ['AWSCURRENT'], 'version-2': ['AWSPENDING'] });
  });

  it('exits 1 with the reason when there is nothing to promote', async () => {
    // Prepare
    secret.put('old-key');

    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--promote']);

    // Assess
    expect(result.status).toBe(1);
    expect(result.err).toEqual([expect.stringContaining('no AWSPENDING version to promote')]);
  });

  it('exits 1 naming the Secrets Manager error when the call is refused', async () => {
    // Prepare
    secretsManager.on(ListSecretVersionIdsCommand).rejects(
      Object.assign(new Error("Secrets Manager can't find the specified secret."), {
        name: 'ResourceNotFoundException',
      }),
    );

    // Act
    const result = await rotate(['--secret-id', 'missing', '--revoke-previous']);

    // Assess
    expect(result.status).toBe(1);
    expect(result.err).toEqual([
      "Secrets Manager: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    ]);
  });

  it('refuses a key file it cannot read without printing the path, which may be a pasted key', async () => {
    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--put', 'sk_live_pasted_key']);

    // Assess: 3, no key, as sign and verify answer a key file they cannot read
    expect(result.status).toBe(3);
    expect(result.err.join('\n')).not.toContain('sk_live_pasted_key');
    expect(result.err).toEqual([expect.stringContaining('cannot read the key file (ENOENT)')]);
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it.each([
    ['a .env line', 'WEBHOOK_SECRET=k7Qe2mZ9xV4pL8sN\n', 'holds a WEBHOOK_SECRET=… line'],
    ['several lines', 'k7Qe2mZ9xV4pL8sN\nsecond-line\n', 'holds several lines'],
  ])(
    'exits 3 (no key) for a key file holding %s, storing nothing the receiver would verify with',
    async (_, content, message) => {
      // Prepare
      secret.put('old-key');
      await writeFile(join(dir, 'leaked.env'), content);

      // Act
      const result = await rotate(['--secret-id', SECRET_ID, '--put', 'leaked.env']);

      // Assess
      expect(result.status).toBe(3);
      expect(result.err).toEqual([expect.stringContaining(message)]);
      expect(result.err.join('\n')).not.toContain('k7Qe2m');
      expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    },
  );

  describe('--endpoint', () => {
    const cloudFormation = mockClient(CloudFormationClient);
    const EU_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook-eu-AbCdEf';

    beforeEach(() => {
      cloudFormation.reset();
      cloudFormation.on(DescribeStacksCommand).resolves({
        Stacks: [
          {
            StackName: 'Bookings',
            CreationTime: new Date(),
            StackStatus: 'CREATE_COMPLETE',
            Outputs: [
              { OutputKey: 'WebhookUrlEu', OutputValue: 'https://example.com/webhook/eu' },
              { OutputKey: 'SecretArnEu', OutputValue: EU_ARN },
              { OutputKey: 'SecretArnUsWest', OutputValue: `${EU_ARN}-us` },
            ],
          },
        ],
      });
    });

    afterAll(() => {
      cloudFormation.restore();
    });

    it("rotates the secret of the stack's SecretArn<Name> output and no other", async () => {
      // Prepare
      secret.put('old-key');
      await writeFile(join(dir, 'eu.key'), 'new-eu-key\n');

      // Act
      const result = await rotate([
        '--endpoint',
        'eu',
        '--stack-name',
        'Bookings',
        '--put',
        'eu.key',
      ]);

      // Assess
      expect(result.status).toBe(0);
      expect(result.out[0]).toBe(`Endpoint eu: ${EU_ARN}`);
      expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
        StackName: 'Bookings',
      });
      expect(
        secretsManager.commandCalls(PutSecretValueCommand).map((call) => call.args[0].input),
      ).toEqual([{ SecretId: EU_ARN, SecretString: 'new-eu-key' }]);
      expect(stagesOf()).toEqual({ 'version-1': ['AWSPREVIOUS'], 'version-2': ['AWSCURRENT'] });
    });

    it('exits 2 naming the endpoint when the stack has no secret for it, changing nothing', async () => {
      // Act
      const result = await rotate(['--endpoint', 'apac', '--promote']);

      // Assess
      expect(result.status).toBe(2);
      expect(result.err).toEqual([
        "unknown endpoint 'apac': stack WebhookReceiver has no output SecretArnApac (its endpoint secrets: SecretArnEu, SecretArnUsWest) (see npm run rotate-secret -- --help)",
      ]);
      expect(secretsManager.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
    });

    it('finds the secret in the endpoint directory of a stack with more endpoints than outputs, and rotates only it', async () => {
      // Prepare: outputs as a stack of 100 endpoints has them
      const directoryArn =
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:EndpointDirectory-AbCdEf';
      const name = `${'e'.repeat(30)}42`;
      cloudFormation.on(DescribeStacksCommand).resolves({
        Stacks: [
          {
            StackName: 'Bookings',
            CreationTime: new Date(),
            StackStatus: 'CREATE_COMPLETE',
            Outputs: [
              { OutputKey: 'EndpointUrlPrefix', OutputValue: 'https://example.com/webhook' },
              { OutputKey: 'EndpointDirectoryArn', OutputValue: directoryArn },
            ],
          },
        ],
      });
      secretsManager.on(GetSecretValueCommand, { SecretId: directoryArn }).resolves({
        SecretString: JSON.stringify({ secretIds: { [name]: EU_ARN, other: `${EU_ARN}-x` } }),
      });
      secret.put('old-key');
      await writeFile(join(dir, 'eu.key'), 'new-key\n');

      // Act
      const found = await rotate([
        '--endpoint',
        name,
        '--stack-name',
        'Bookings',
        '--put',
        'eu.key',
      ]);
      const unknown = await rotate(['--endpoint', 'apac', '--stack-name', 'Bookings', '--promote']);

      // Assess
      expect(found.status).toBe(0);
      expect(found.out[0]).toBe(`Endpoint ${name}: ${EU_ARN}`);
      expect(
        secretsManager.commandCalls(PutSecretValueCommand).map((call) => call.args[0].input),
      ).toEqual([{ SecretId: EU_ARN, SecretString: 'new-key' }]);
      expect(unknown.status).toBe(2);
      expect(unknown.err[0]).toMatch(
        /unknown endpoint 'apac': the endpoint directory of stack Bookings \(EndpointDirectoryArn\) does not list it \(it lists 2 endpoints\)/,
      );
    });

    it('exits 1 naming the endpoint directory when its value is not a directory, and changes nothing', async () => {
      // Prepare
      const directoryArn =
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:EndpointDirectory-AbCdEf';
      cloudFormation.on(DescribeStacksCommand).resolves({
        Stacks: [
          {
            StackName: 'Bookings',
            CreationTime: new Date(),
            StackStatus: 'CREATE_COMPLETE',
            Outputs: [{ OutputKey: 'EndpointDirectoryArn', OutputValue: directoryArn }],
          },
        ],
      });
      secretsManager.on(GetSecretValueCommand, { SecretId: directoryArn }).resolves({
        SecretString: 'not json',
      });

      // Act
      const result = await rotate(['--endpoint', 'eu', '--stack-name', 'Bookings', '--promote']);

      // Assess
      expect(result.status).toBe(1);
      expect(result.err).toEqual([
        expect.stringMatching(
          /^Endpoint directory: the endpoint directory \(ENDPOINT_DIRECTORY_SECRET_ID\) secretIds/,
        ),
      ]);
      expect(secretsManager.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
    });

    it("exits 1 with CloudFormation's answer when the stack cannot be read", async () => {
      // Prepare
      cloudFormation.on(DescribeStacksCommand).rejects(
        Object.assign(new Error('Stack with id Nope does not exist'), {
          name: 'ValidationError',
        }),
      );

      // Act
      const result = await rotate(['--endpoint', 'eu', '--stack-name', 'Nope', '--promote']);

      // Assess
      expect(result.status).toBe(1);
      expect(result.err).toEqual([
        'CloudFormation: ValidationError: Stack with id Nope does not exist',
      ]);
    });

    it.each([
      [['--endpoint', 'EU', '--promote'], "unknown endpoint 'EU': a name is 1 to 32 characters"],
      [['--endpoint', 'eu', '--secret-id', SECRET_ID, '--promote'], 'not both'],
      [['--secret-id', SECRET_ID, '--stack-name', 'Bookings', '--promote'], '--endpoint only'],
    ])('exits 2 on the usage error %j without calling AWS', async (args, message) => {
      // Act
      const result = await rotate(args);

      // Assess
      expect(result.status).toBe(2);
      expect(result.err).toEqual([expect.stringContaining(message)]);
      expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
    });
  });

  it.each([
    [['--put', 'new.key'], '--secret-id ID is required'],
    [['--secret-id', SECRET_ID], 'choose exactly one'],
    [['--secret-id', SECRET_ID, '--promote', '--revoke-previous'], 'choose exactly one'],
    [['--secret-id', SECRET_ID, '--put'], "Option '--put <value>' argument missing"],
    [['--secret-id', SECRET_ID, '--promote', 'extra'], 'Unexpected argument'],
  ])('exits 2 on the usage error %j', async (args, message) => {
    // Act
    const result = await rotate(args);

    // Assess
    expect(result.status).toBe(2);
    expect(result.err).toEqual([expect.stringContaining(message)]);
  });

  it('exits 3 (no key) when the key file is blank', async () => {
    // Prepare
    await writeFile(join(dir, 'blank.key'), ' \n');

    // Act
    const result = await rotate(['--secret-id', SECRET_ID, '--put', 'blank.key']);

    // Assess
    expect(result.status).toBe(3);
    expect(result.err).toEqual([expect.stringContaining('the key file is empty')]);
  });

  it('prints the usage with --help', async () => {
    // Act
    const result = await rotate(['--help']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out[0]).toContain('Usage: npm run rotate-secret');
  });
});
