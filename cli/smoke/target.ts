import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  awsStep,
  type EndpointOutput,
  endpointUrl,
  lookupEndpointSecretArn,
  readStackOutputs,
  type StackOutputs,
} from '../../devkit/stack-outputs.js';
import { type ToolIo, UsageError } from '../../devkit/tool-io.js';
import { STACK_OUTPUTS } from '../../lambda/contract/endpoints.js';
import type { SmokeWatch } from './watch.js';

/**
 * Where the smoke sends its booking and waits for it: the options, then the stack's outputs.
 * @module
 */

/** What one smoke run sends, and where to. */
export interface SmokeTarget {
  readonly url: string;
  readonly secretId: string;
  readonly watch: SmokeWatch;
}

/** What the command line says of the target; the stack is read for the rest. */
export interface TargetOptions {
  readonly stackName: string;
  readonly endpoint: string | undefined;
  readonly url: string | undefined;
  readonly secretId: string | undefined;
  readonly watch: SmokeWatch | undefined;
}

/**
 * The URL, secret and place to wait in: the options, then the stack's outputs for what they do
 * not give. The stack is not read when the options give everything.
 *
 * @throws {UsageError} when the stack lacks an output the run needs
 */
export async function resolveTarget(options: TargetOptions, io: ToolIo): Promise<SmokeTarget> {
  const { url, secretId, watch } = options;
  if (url !== undefined && secretId !== undefined && watch !== undefined) {
    return { url, secretId, watch };
  }
  const client = new CloudFormationClient({});
  let outputs: StackOutputs;
  try {
    outputs = await awsStep('CloudFormation', io.networkTimeoutMs, (signal) =>
      readStackOutputs(client, options.stackName, signal),
    );
  } finally {
    client.destroy();
  }
  io.out(`stack ${options.stackName}: ${outputs.values.size} outputs`);
  const found = (output: EndpointOutput) => {
    if (!output.ok) throw new UsageError(output.message);
    return output.value;
  };
  return {
    url: url ?? found(endpointUrl(outputs, options.endpoint)),
    secretId: secretId ?? found(await endpointSecretArnFromStack(outputs, options.endpoint, io)),
    watch: watch ?? watchFromStack(outputs),
  };
}

/** The endpoint's secret ARN from the stack's outputs, or from its endpoint directory. */
async function endpointSecretArnFromStack(
  outputs: StackOutputs,
  endpoint: string | undefined,
  io: ToolIo,
): Promise<EndpointOutput> {
  const secretsManager = new SecretsManagerClient({});
  try {
    return await awsStep('Secrets Manager', io.networkTimeoutMs, (signal) =>
      lookupEndpointSecretArn(outputs, endpoint, secretsManager, signal),
    );
  } finally {
    secretsManager.destroy();
  }
}

/** The consumer's log group when the stack deploys the example consumer, else its queue. */
function watchFromStack(outputs: StackOutputs): SmokeWatch {
  const logGroupName = outputs.values.get(STACK_OUTPUTS.consumerLogGroupName);
  if (logGroupName !== undefined) return { kind: 'consumer', logGroupName };
  const queueUrl = outputs.values.get(STACK_OUTPUTS.queueUrl);
  if (queueUrl !== undefined) return { kind: 'queue', queueUrl };
  throw new UsageError(
    `stack ${outputs.stackName} has neither ${STACK_OUTPUTS.consumerLogGroupName} nor ${STACK_OUTPUTS.queueUrl}: is it a webhook receiver stack?`,
  );
}
