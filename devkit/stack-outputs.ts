/**
 * The tools' one way to read a deployed stack's outputs (CloudFormation `DescribeStacks`) and to
 * find an endpoint's `WebhookUrl<Name>`/`SecretArn<Name>` among them, or, for a stack with more
 * endpoints than outputs, its URL under `EndpointUrlPrefix` and its secret in the endpoint directory.
 * `rotate-secret`, `smoke`, `redrive` and `replay` read the stack through it; needs `cloudformation:DescribeStacks` on
 * the stack (and `secretsmanager:GetSecretValue` on the directory when the stack has one).
 * @module
 */
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseEndpointDirectory } from '../lambda/contract/endpoint-directory.js';
import { endpointOutputKey, STACK_OUTPUTS } from '../lambda/contract/endpoints.js';
import { ConfigError } from '../lambda/contract/environment.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { EXIT_STATUS, ToolError } from './exit-status.js';
import { NETWORK_TIMEOUT_MS, withTimeout } from './network.js';

/** The outputs of one deployed stack, by output key. */
export interface StackOutputs {
  /** The stack's name, for messages. */
  readonly stackName: string;
  /** Output key to value (`WebhookUrl` -> `https://...`). */
  readonly values: ReadonlyMap<string, string>;
}

/**
 * Reads the outputs of `stackName`.
 *
 * @param client - the CloudFormation client
 * @param stackName - the deployed stack (`cdk deploy`'s stack name)
 * @param abortSignal - aborts the call (default: after `NETWORK_TIMEOUT_MS`)
 * @throws the SDK's error when CloudFormation refuses (no such stack, access denied)
 */
export async function readStackOutputs(
  client: CloudFormationClient,
  stackName: string,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<StackOutputs> {
  const described = await client.send(new DescribeStacksCommand({ StackName: stackName }), {
    abortSignal,
  });
  const values = new Map<string, string>();
  for (const output of described.Stacks?.[0]?.Outputs ?? []) {
    if (output.OutputKey !== undefined && output.OutputValue !== undefined) {
      values.set(output.OutputKey, output.OutputValue);
    }
  }
  return { stackName, values };
}

/** Result of {@link endpointOutput}: the value, or why the stack has none. */
export type EndpointOutput =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly message: string };

/**
 * An endpoint's `WebhookUrl` or `SecretArn` output: `<output>` for the single endpoint,
 * `<output><Name>` for endpoint `name` of a stack deployed with `-c endpoints=...`.
 *
 * @param outputs - from {@link readStackOutputs}
 * @param output - `WebhookUrl` or `SecretArn`
 * @param endpoint - the endpoint's name; absent for the single endpoint
 */
export function endpointOutput(
  outputs: StackOutputs,
  output: typeof STACK_OUTPUTS.webhookUrl | typeof STACK_OUTPUTS.secretArn,
  endpoint?: string,
): EndpointOutput {
  const outputKey = endpoint === undefined ? output : endpointOutputKey(output, endpoint);
  const value = outputs.values.get(outputKey);
  if (value !== undefined) return { ok: true, value };
  const named = [...outputs.values.keys()].filter(
    (key) => key.startsWith(output) && key !== output,
  );
  if (endpoint === undefined) {
    return {
      ok: false,
      message: `stack ${outputs.stackName} has no output ${outputKey}${named.length === 0 ? '' : `: it serves named endpoints (${named.join(', ')}), pass --endpoint NAME`}`,
    };
  }
  const known = named.length === 0 ? 'none: it serves no named endpoints' : named.join(', ');
  return {
    ok: false,
    message: `unknown endpoint '${endpoint}': stack ${outputs.stackName} has no output ${outputKey} (its endpoint ${output === STACK_OUTPUTS.secretArn ? 'secrets' : 'URLs'}: ${known})`,
  };
}

/**
 * An endpoint's webhook URL: its `WebhookUrl<Name>` output or, for a stack with more endpoints
 * than outputs, `<EndpointUrlPrefix>/<name>`.
 *
 * @param outputs - from {@link readStackOutputs}
 * @param endpoint - the endpoint's name; absent for the single endpoint
 */
export function endpointUrl(outputs: StackOutputs, endpoint?: string): EndpointOutput {
  const prefix = outputs.values.get(STACK_OUTPUTS.endpointUrlPrefix);
  if (endpoint !== undefined && prefix !== undefined) {
    return { ok: true, value: `${prefix}/${endpoint}` };
  }
  return endpointOutput(outputs, STACK_OUTPUTS.webhookUrl, endpoint);
}

/**
 * An endpoint's secret ARN: its `SecretArn<Name>` output or, for a stack with more endpoints than
 * outputs, its entry in the endpoint directory that the `EndpointDirectoryArn` output names.
 *
 * @param outputs - from {@link readStackOutputs}
 * @param endpoint - the endpoint's name; absent for the single endpoint
 * @param secretsManager - reads the endpoint directory
 * @param abortSignal - aborts the directory read
 * @throws {ToolError} when the endpoint directory cannot be read as one (exit 1)
 */
export async function lookupEndpointSecretArn(
  outputs: StackOutputs,
  endpoint: string | undefined,
  secretsManager: SecretsManagerClient,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<EndpointOutput> {
  const directoryArn = outputs.values.get(STACK_OUTPUTS.endpointDirectoryArn);
  if (endpoint === undefined || directoryArn === undefined) {
    return endpointOutput(outputs, STACK_OUTPUTS.secretArn, endpoint);
  }
  const { SecretString } = await secretsManager.send(
    new GetSecretValueCommand({ SecretId: directoryArn }),
    { abortSignal },
  );
  const sources = readEndpointDirectory(SecretString ?? '');
  const source = sources.get(endpoint);
  return source?.kind === 'secrets-manager'
    ? { ok: true, value: source.secretId }
    : {
        ok: false,
        message: `unknown endpoint '${endpoint}': the endpoint directory of stack ${outputs.stackName} (${STACK_OUTPUTS.endpointDirectoryArn}) does not list it (it lists ${sources.size} endpoints)`,
      };
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

/**
 * One tool step's AWS calls, within the tools' network timeout: a timeout or a connection failure
 * is a `NetworkError` (exit 4) and the service's refusal a one-line {@link ToolError} naming the
 * service (exit 1), e.g. `CloudFormation: ValidationError: Stack with id X does not exist`.
 *
 * @param service - the service called, for messages (`CloudFormation`, `Secrets Manager`)
 * @param timeoutMs - how long the step may take (`ToolIo.networkTimeoutMs`)
 * @param calls - the step, which must honour the signal
 */
export async function awsStep<T>(
  service: string,
  timeoutMs: number,
  calls: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  try {
    return await withTimeout(service, timeoutMs, calls);
  } catch (error) {
    if (error instanceof WebhookReceiverError) throw error;
    const { name, message } = error as Error;
    throw new ToolError(`${service}: ${name}: ${message}`, EXIT_STATUS.refused, { cause: error });
  }
}
