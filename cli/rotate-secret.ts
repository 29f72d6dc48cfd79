/**
 * `npm run rotate-secret`: change which key the deployed receiver accepts, using Secrets Manager's
 * staging labels (AWSCURRENT, AWSPENDING, AWSPREVIOUS), and show the result.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { EXIT_STATUS, EXIT_STATUS_USAGE, NoKeyError } from '../devkit/exit-status.js';
import { NETWORK_TIMEOUT_MS } from '../devkit/network.js';
import { keyFromFileText, SECRET_JSON_FIELD_VARIABLE } from '../devkit/signing-key.js';
import { awsStep, lookupEndpointSecretArn, readStackOutputs } from '../devkit/stack-outputs.js';
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
  isEndpointName,
} from '../lambda/contract/endpoints.js';
import {
  applyRotation,
  formatVersions,
  listSecretVersions,
  type RotateAction,
} from './rotate-secret/rotation.js';

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
                       keeps working for PREVIOUS_KEY_GRACE_SECONDS (default 24 h); a key staged
                       before (AWSPENDING) is no longer accepted
  --stage KEYFILE      store the key as AWSPENDING: accepted alongside the current key, for a
                       switch-over before the sender starts using it
  --promote            make the AWSPENDING key AWSCURRENT (the old one becomes AWSPREVIOUS)
  --revoke-previous    stop accepting every key but AWSCURRENT now: the AWSPREVIOUS key, instead
                       of after the grace period, and a staged AWSPENDING key
  --help               show this help

KEYFILE is a file holding the key alone, or - to read it from stdin; surrounding whitespace is
trimmed, and several lines or a WEBHOOK_SECRET=... line are refused (exit 3). When the current
value is a JSON object (the console's key/value form), the new version is the same object with
the key replaced in the field the receiver reads (its only text field, or SECRET_JSON_FIELD).
Keys are never taken from the command line, where shell history would keep them.
AWS credentials and region come from the usual AWS environment (AWS_PROFILE, AWS_REGION, ...).

${EXIT_STATUS_USAGE}`;

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
  const outputs = await readStackOutputs(client, stackName, abortSignal);
  const found = await lookupEndpointSecretArn(outputs, endpoint, secretsManager, abortSignal);
  return found.ok ? { ok: true, secretArn: found.value } : found;
}

async function rotate(request: RotateRequest, io: ToolIo): Promise<number> {
  const client = new SecretsManagerClient({});
  const cloudFormation = new CloudFormationClient({});
  const step = <T>(service: string, calls: (signal: AbortSignal) => Promise<T>) =>
    awsStep(service, io.networkTimeoutMs, calls);
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
 * The key in `keyFile` (`-` = stdin), trimmed ({@link keyFromFileText}). The path is never echoed
 * in errors: a user who typed the key itself in its place should not see it printed back.
 */
async function readKey(keyFile: string, io: ToolIo): Promise<string> {
  let content: string;
  try {
    content =
      keyFile === '-' ? await text(io.stdin) : await readFile(resolve(io.cwd, keyFile), 'utf8');
  } catch (error) {
    throw new NoKeyError(
      `cannot read the key file (${(error as NodeJS.ErrnoException).code ?? 'error'}): give a path to a file holding the key, or - for stdin`,
    );
  }
  return keyFromFileText(content, keyFile === '-' ? 'stdin' : 'the key file');
}

if (isEntryPoint(import.meta.url))
  process.exitCode = await main(process.argv.slice(2), processIo());
