/**
 * `npm run rotate-secret`: change which key the deployed receiver accepts, using Secrets Manager's
 * staging labels (AWSCURRENT, AWSPENDING, AWSPREVIOUS), and show the result.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  paginateListSecretVersionIds,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../devkit/exit-status.js';
import { NETWORK_TIMEOUT_MS, withTimeout } from '../devkit/network.js';
import { SECRET_JSON_FIELD_VARIABLE } from '../devkit/signing-key.js';
import {
  isEntryPoint,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
} from '../devkit/tool-io.js';
import {
  DEFAULT_STACK_NAME,
  ENDPOINT_NAME_RULE,
  endpointOutputKey,
  isEndpointName,
  STACK_OUTPUTS,
} from '../lambda/contract/endpoints.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { ConfigError, parseEndpointDirectory } from '../lambda/receiver/config.js';
import {
  describeSecretKeyFailure,
  replaceKeyInSecretValue,
} from '../lambda/receiver/decision/secret-value.js';

const USAGE = `Usage: npm run rotate-secret -- (--secret-id ID | --endpoint NAME [--stack-name NAME])
         (--put KEYFILE | --stage KEYFILE | --promote | --revoke-previous)

Changes which signing key the deployed receiver accepts, then prints every version's stages.

  --secret-id ID       the secret (name or ARN; the stack's SecretArn output)
  --endpoint NAME      the secret of endpoint NAME of a stack deployed with -c endpoints=...: the
                       stack's SecretArn<Name> output (eu-west -> SecretArnEuWest), or its entry
                       in the endpoint directory (output EndpointDirectoryArn) of a stack with
                       more endpoints than outputs; the other endpoints' keys are left alone
  --stack-name NAME    the stack to read that output from (default ${DEFAULT_STACK_NAME})
  --put KEYFILE        store the key as the new AWSCURRENT; the old key becomes AWSPREVIOUS and
                       keeps working for PREVIOUS_KEY_GRACE_SECONDS (default 24 h)
  --stage KEYFILE      store the key as AWSPENDING: accepted alongside the current key, for a
                       switch-over before the sender starts using it
  --promote            make the AWSPENDING key AWSCURRENT (the old one becomes AWSPREVIOUS)
  --revoke-previous    stop accepting the AWSPREVIOUS key now instead of after the grace period
  --help               show this help

KEYFILE is a file holding the key, or - to read it from stdin; surrounding whitespace is
trimmed. When the current value is a JSON object (the console's key/value form), the new
version is the same object with the key replaced in the field the receiver reads (its only
text field, or SECRET_JSON_FIELD). Keys are never taken from the command line, where shell history would keep them.
AWS credentials and region come from the usual AWS environment (AWS_PROFILE, AWS_REGION, ...).

${EXIT_STATUS_USAGE}`;

/** Staging label of the key the sender signs with now. */
export const AWSCURRENT = 'AWSCURRENT';
/** Staging label of a key staged ahead of the sender's switch; the receiver accepts it too. */
export const AWSPENDING = 'AWSPENDING';
/** Staging label Secrets Manager moves to the replaced key; accepted during the grace period. */
export const AWSPREVIOUS = 'AWSPREVIOUS';

/** One change to the secret's versions. */
export type RotateAction =
  | { readonly kind: 'put'; readonly key: string }
  | { readonly kind: 'stage'; readonly key: string }
  | { readonly kind: 'promote' }
  | { readonly kind: 'revoke-previous' };

/** A version of the secret and its staging labels. */
export interface SecretVersion {
  readonly versionId: string;
  readonly stages: readonly string[];
  readonly createdDate: Date | undefined;
}

/**
 * A rotation step that cannot be done in the secret's current state (e.g. nothing staged to
 * promote): exit 1.
 */
export class RotationError extends ToolError {
  /** @param message - what cannot be done and what to do first */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/** The secret a step changes, and the signal that ends its calls. */
interface SecretCall {
  readonly client: SecretsManagerClient;
  readonly secretId: string;
  readonly abortSignal: AbortSignal;
}

/**
 * Applies one action and returns a sentence saying what changed:
 * - `put`: a new version becomes AWSCURRENT; Secrets Manager moves AWSPREVIOUS to the old one, which
 *   the receiver keeps accepting for `PREVIOUS_KEY_GRACE_SECONDS`.
 * - `stage`: a new version labelled AWSPENDING only, so the receiver accepts it before the sender
 *   switches, while AWSCURRENT stays as it is.
 * - `promote`: moves AWSCURRENT to the AWSPENDING version (AWSPREVIOUS follows to the old one),
 *   then removes AWSPENDING from it. In that order, so the new key is labelled at every moment.
 * - `revoke-previous`: removes AWSPREVIOUS, so the old key stops working at the receiver's next
 *   key refresh instead of after the grace period.
 *
 * `put` and `stage` keep the secret's shape: when the AWSCURRENT value is a JSON object, the new
 * version is that object with the key replaced in the field the receiver reads.
 *
 * @param jsonField - `SECRET_JSON_FIELD`, when set
 * @param abortSignal - aborts every call the step makes (default: after `NETWORK_TIMEOUT_MS`)
 * @throws {RotationError} when there is no AWSPENDING version to promote, or the current JSON
 *   value has no field the receiver would read the key from
 */
export async function applyRotation(
  client: SecretsManagerClient,
  secretId: string,
  action: RotateAction,
  jsonField?: string | undefined,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<string> {
  const call = { client, secretId, abortSignal };
  switch (action.kind) {
    case 'put': {
      const secretString = await shapedValue(call, action.key, jsonField);
      const put = await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: secretString }),
        { abortSignal },
      );
      return `Stored the new key as version ${put.VersionId} (${AWSCURRENT}); the replaced key is ${AWSPREVIOUS} and keeps working for PREVIOUS_KEY_GRACE_SECONDS.`;
    }
    case 'stage': {
      const secretString = await shapedValue(call, action.key, jsonField);
      const put = await client.send(
        new PutSecretValueCommand({
          SecretId: secretId,
          SecretString: secretString,
          VersionStages: [AWSPENDING],
        }),
        { abortSignal },
      );
      return `Staged the new key as version ${put.VersionId} (${AWSPENDING}); the receiver accepts it alongside ${AWSCURRENT}. Run --promote once the sender signs with it.`;
    }
    case 'promote':
      return promote(call);
    case 'revoke-previous':
      return revokePrevious(call);
  }
}

/** The value to store for `key`, shaped like the AWSCURRENT value (see `replaceKeyInSecretValue`). */
async function shapedValue(
  { client, secretId, abortSignal }: SecretCall,
  key: string,
  jsonField: string | undefined,
): Promise<string> {
  let current: string | undefined;
  try {
    const value = await client.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionStage: AWSCURRENT }),
      { abortSignal },
    );
    current = value.SecretString;
  } catch (error) {
    // A secret created without a value: the first version is the key itself.
    if (error instanceof ResourceNotFoundException) return key;
    throw error;
  }
  if (current === undefined) return key;
  const replaced = replaceKeyInSecretValue(current, key, jsonField);
  if (!replaced.ok) {
    throw new RotationError(
      `${secretId} (${AWSCURRENT}): ${describeSecretKeyFailure(replaced)}; nothing was changed`,
    );
  }
  return replaced.secretString;
}

async function promote({ client, secretId, abortSignal }: SecretCall): Promise<string> {
  const versions = await listSecretVersions(client, secretId, abortSignal);
  const pending = versions.find((version) => version.stages.includes(AWSPENDING));
  if (!pending) {
    throw new RotationError(
      `${secretId} has no ${AWSPENDING} version to promote: stage one first with --stage KEYFILE`,
    );
  }
  const current = versions.find((version) => version.stages.includes(AWSCURRENT));
  if (current?.versionId !== pending.versionId) {
    await client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: AWSCURRENT,
        MoveToVersionId: pending.versionId,
        ...(current ? { RemoveFromVersionId: current.versionId } : {}),
      }),
      { abortSignal },
    );
  }
  await client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: AWSPENDING,
      RemoveFromVersionId: pending.versionId,
    }),
    { abortSignal },
  );
  return `Promoted version ${pending.versionId} to ${AWSCURRENT}; the replaced key is ${AWSPREVIOUS} and keeps working for PREVIOUS_KEY_GRACE_SECONDS.`;
}

async function revokePrevious({ client, secretId, abortSignal }: SecretCall): Promise<string> {
  const versions = await listSecretVersions(client, secretId, abortSignal);
  const previous = versions.find((version) => version.stages.includes(AWSPREVIOUS));
  if (!previous) return `${secretId} has no ${AWSPREVIOUS} version: nothing to revoke.`;
  await client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: AWSPREVIOUS,
      RemoveFromVersionId: previous.versionId,
    }),
    { abortSignal },
  );
  return `Removed ${AWSPREVIOUS} from version ${previous.versionId}: the receiver stops accepting that key at its next key refresh (SECRET_CACHE_SECONDS, sooner after a mismatch).`;
}

/**
 * Every version that still has a staging label, newest first.
 *
 * @param abortSignal - aborts the listing, every page included (default: after `NETWORK_TIMEOUT_MS`)
 */
export async function listSecretVersions(
  client: SecretsManagerClient,
  secretId: string,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<SecretVersion[]> {
  const versions: SecretVersion[] = [];
  const pages = paginateListSecretVersionIds({ client }, { SecretId: secretId }, { abortSignal });
  for await (const page of pages) {
    for (const entry of page.Versions ?? []) {
      if (entry.VersionId === undefined) continue;
      versions.push({
        versionId: entry.VersionId,
        stages: entry.VersionStages ?? [],
        createdDate: entry.CreatedDate,
      });
    }
  }
  return versions.sort((a, b) => (b.createdDate?.getTime() ?? 0) - (a.createdDate?.getTime() ?? 0));
}

/** One line per version: id, labels, creation time. */
export function formatVersions(secretId: string, versions: readonly SecretVersion[]): string {
  const lines = versions.map(
    (version) =>
      `  ${version.versionId}  ${version.stages.join(',') || '(no stage)'}  created ${version.createdDate?.toISOString() ?? 'unknown'}`,
  );
  return [`Versions of ${secretId}:`, ...lines].join('\n');
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status.
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'rotate-secret', usage: USAGE },
    () => parseRequest(args, io),
    (request) => rotate(request, io),
  );
}

/** The secret a rotation changes: given, or the one of a deployed endpoint. */
type RotationTarget =
  | { readonly secretId: string }
  | { readonly endpoint: string; readonly stackName: string };

interface RotateRequest {
  readonly target: RotationTarget;
  readonly action: RotateAction;
}

/** The endpoint directory's entries; one that is not a directory is refused (exit 1). */
function readEndpointDirectory(text: string): ReturnType<typeof parseEndpointDirectory> {
  try {
    return parseEndpointDirectory(text);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ToolError(`Endpoint directory: ${error.message}`, EXIT_STATUS.refused, {
      cause: error,
    });
  }
}

/** Result of {@link endpointSecretArn}: the ARN, or why the stack has none for the endpoint. */
export type EndpointSecretArn =
  | { readonly ok: true; readonly secretArn: string }
  | { readonly ok: false; readonly message: string };

/**
 * The secret ARN of a deployed endpoint, from the stack's `SecretArn<Name>` output or, for a
 * stack with more endpoints than outputs, from the endpoint directory its `EndpointDirectoryArn`
 * output names.
 *
 * @param client - the CloudFormation client
 * @param stackName - the stack deployed with `-c endpoints=...`
 * @param endpoint - the endpoint's name
 * @param secretsManager - the Secrets Manager client, to read the endpoint directory
 * @param abortSignal - aborts the calls (default: after `NETWORK_TIMEOUT_MS`)
 * @throws {ToolError} when the endpoint directory cannot be read as one
 */
export async function endpointSecretArn(
  client: CloudFormationClient,
  stackName: string,
  endpoint: string,
  secretsManager: SecretsManagerClient,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<EndpointSecretArn> {
  const described = await client.send(new DescribeStacksCommand({ StackName: stackName }), {
    abortSignal,
  });
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  const outputKey = endpointOutputKey(STACK_OUTPUTS.secretArn, endpoint);
  const secretArn = outputs.find((output) => output.OutputKey === outputKey)?.OutputValue;
  if (secretArn !== undefined) return { ok: true, secretArn };
  const directoryArn = outputs.find(
    (output) => output.OutputKey === STACK_OUTPUTS.endpointDirectoryArn,
  )?.OutputValue;
  if (directoryArn !== undefined) {
    const { SecretString } = await secretsManager.send(
      new GetSecretValueCommand({ SecretId: directoryArn }),
      { abortSignal },
    );
    const sources = readEndpointDirectory(SecretString ?? '');
    const source = sources.get(endpoint);
    return source?.kind === 'secrets-manager'
      ? { ok: true, secretArn: source.secretId }
      : {
          ok: false,
          message: `unknown endpoint '${endpoint}': the endpoint directory of stack ${stackName} (${STACK_OUTPUTS.endpointDirectoryArn}) does not list it (it lists ${sources.size} endpoints)`,
        };
  }
  const endpointOutputs = outputs
    .map((output) => output.OutputKey ?? '')
    .filter((key) => key.startsWith(STACK_OUTPUTS.secretArn) && key !== STACK_OUTPUTS.secretArn);
  const known =
    endpointOutputs.length === 0
      ? 'none: it serves no named endpoints'
      : endpointOutputs.join(', ');
  return {
    ok: false,
    message: `unknown endpoint '${endpoint}': stack ${stackName} has no output ${outputKey} (its endpoint secrets: ${known})`,
  };
}

async function rotate(request: RotateRequest, io: ToolIo): Promise<number> {
  const client = new SecretsManagerClient({});
  const cloudFormation = new CloudFormationClient({});
  /** One step's calls, within the tools' network timeout; AWS's refusals named by service. */
  const step = async <T>(service: string, calls: (signal: AbortSignal) => Promise<T>) => {
    try {
      return await withTimeout(service, io.networkTimeoutMs, calls);
    } catch (error) {
      if (error instanceof WebhookReceiverError) throw error;
      const { name, message } = error as Error;
      throw new ToolError(`${service}: ${name}: ${message}`, EXIT_STATUS.refused, { cause: error });
    }
  };
  try {
    let secretId: string;
    if ('secretId' in request.target) {
      secretId = request.target.secretId;
    } else {
      const { endpoint, stackName } = request.target;
      const found = await step('CloudFormation', (signal) =>
        endpointSecretArn(cloudFormation, stackName, endpoint, client, signal),
      );
      if (!found.ok) throw new UsageError(found.message);
      secretId = found.secretArn;
      io.out(`Endpoint ${endpoint}: ${secretId}`);
    }
    const jsonField = io.env[SECRET_JSON_FIELD_VARIABLE]?.trim() || undefined;
    const { action } = request;
    io.out(
      await step('Secrets Manager', (signal) =>
        applyRotation(client, secretId, action, jsonField, signal),
      ),
    );
    const versions = await step('Secrets Manager', (signal) =>
      listSecretVersions(client, secretId, signal),
    );
    io.out(formatVersions(secretId, versions));
    return EXIT_STATUS.ok;
  } finally {
    client.destroy();
    cloudFormation.destroy();
  }
}

async function parseRequest(args: readonly string[], io: ToolIo): Promise<RotateRequest | 'help'> {
  const values = parseToolArgs(args, {
    'secret-id': { type: 'string' },
    endpoint: { type: 'string' },
    'stack-name': { type: 'string' },
    put: { type: 'string' },
    stage: { type: 'string' },
    promote: { type: 'boolean' },
    'revoke-previous': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const chosen = (['put', 'stage', 'promote', 'revoke-previous'] as const).filter(
    (name) => values[name] !== undefined && values[name] !== false,
  );
  if (chosen.length !== 1) {
    throw new UsageError(
      'choose exactly one of --put KEYFILE, --stage KEYFILE, --promote, --revoke-previous',
    );
  }
  const target = targetOf(values);
  switch (chosen[0]) {
    case 'put':
      return { target, action: { kind: 'put', key: await readKey(values.put ?? '', io) } };
    case 'stage':
      return { target, action: { kind: 'stage', key: await readKey(values.stage ?? '', io) } };
    case 'promote':
      return { target, action: { kind: 'promote' } };
    default:
      return { target, action: { kind: 'revoke-previous' } };
  }
}

/**
 * `--secret-id`, or `--endpoint` with `--stack-name`.
 *
 * @throws {UsageError} when neither or both are given, or the endpoint name is not a valid one
 */
function targetOf(values: {
  readonly 'secret-id'?: string | undefined;
  readonly endpoint?: string | undefined;
  readonly 'stack-name'?: string | undefined;
}): RotationTarget {
  const { endpoint } = values;
  const secretId = values['secret-id'];
  if (endpoint !== undefined && secretId !== undefined) {
    throw new UsageError('give --secret-id or --endpoint, not both');
  }
  if (endpoint === undefined) {
    if (!secretId) throw new UsageError('--secret-id ID is required (or --endpoint NAME)');
    if (values['stack-name'] !== undefined) {
      throw new UsageError('--stack-name applies to --endpoint only');
    }
    return { secretId };
  }
  if (!isEndpointName(endpoint)) {
    throw new UsageError(`unknown endpoint '${endpoint}': a name is ${ENDPOINT_NAME_RULE}`);
  }
  return { endpoint, stackName: values['stack-name'] || DEFAULT_STACK_NAME };
}

/**
 * The key in `keyFile` (`-` = stdin), trimmed. The path is never echoed in errors: a user who
 * typed the key itself in its place should not see it printed back.
 */
async function readKey(keyFile: string, io: ToolIo): Promise<string> {
  let content: string;
  try {
    content =
      keyFile === '-' ? await text(io.stdin) : await readFile(resolve(io.cwd, keyFile), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the key file (${(error as NodeJS.ErrnoException).code ?? 'error'}): give a path to a file holding the key, or - for stdin`,
    );
  }
  const key = content.trim();
  if (key === '') throw new UsageError('the key file is empty');
  return key;
}

if (isEntryPoint(import.meta.url))
  process.exitCode = await main(process.argv.slice(2), processIo());
