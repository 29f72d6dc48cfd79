import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  type CfnTemplate,
  DEPLOY_REGION,
  deployedAttribute,
  type PhysicalOverride,
  resolveValue,
} from '../../support/deployed-template.js';
import { LOCAL_AWS_SETTINGS } from '../../support/local-sqs.js';

/**
 * What the child process runs: Lambda's Node.js runtime reduced to what a handler sees. It imports
 * the bundle as the runtime does (`<file>.<export>` of the function's `Handler`), then answers
 * one invocation at a time (as one execution environment does), reading `{ id, event }` lines from
 * stdin and writing `{ id, result }` or `{ id, error }` lines to fd 3, so stdout holds only what
 * the function printed (its log lines and EMF metrics), as CloudWatch Logs would.
 */
const RUNTIME = `
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
const [file, exported, timeoutMs, functionArn] = process.argv.slice(-4);
const handler = (await import(pathToFileURL(file).href))[exported];
const answers = createWriteStream(null, { fd: 3 });
for await (const line of createInterface({ input: process.stdin })) {
  const { id, event } = JSON.parse(line);
  const deadline = Date.now() + Number(timeoutMs);
  const context = {
    awsRequestId: id,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    answers.write(JSON.stringify({ id, result: await handler(event, context) }) + '\\n');
  } catch (error) {
    answers.write(JSON.stringify({ id, error: String(error?.stack ?? error) }) + '\\n');
  }
}
`;

/** A bundled function from `cdk.out`, running in a child process. */
export interface BundledFunction {
  /** The environment it runs with. */
  readonly environment: Readonly<Record<string, string>>;
  /**
   * Invokes the handler with one event.
   * @returns its answer and what it printed meanwhile
   * @throws Error when the handler throws (Lambda's `Errors` metric)
   */
  invoke(event: unknown): Promise<{ readonly result: unknown; readonly output: string }>;
  /** Everything it printed so far, on stdout and stderr. */
  output(): string;
  /** Ends the process. */
  close(): Promise<void>;
}

/** Where the bundle's local dependencies are: `AWS_ENDPOINT_URL_<SERVICE>` per service. */
export type LocalEndpoints = Readonly<
  Record<'SQS' | 'SECRETS_MANAGER' | 'DYNAMODB' | 'FIREHOSE', string>
>;

/**
 * The environment Lambda gives a function: the template's variables as deployed (references
 * resolved, to local resources through `override`), the runtime's reserved variables (region,
 * credentials, function name, memory, log group, log format and level as `LoggingConfig` sets
 * them, task root, time zone) and, as the only addition, `AWS_ENDPOINT_URL_<SERVICE>` for the
 * local servers.
 * @param template - the synthesized template
 * @param functionId - the function's logical id
 * @param directory - its bundle's directory (the task root)
 * @param override - local values of resources (queue URLs, table names)
 * @param endpoints - the local servers
 */
export function lambdaEnvironment(
  template: CfnTemplate,
  functionId: string,
  directory: string,
  override: PhysicalOverride,
  endpoints: LocalEndpoints,
): Record<string, string> {
  const props = template.Resources[functionId]?.Properties ?? {};
  const variables = resolveValue(template, props.Environment?.Variables ?? {}, override) as Record<
    string,
    string
  >;
  const logging = props.LoggingConfig ?? {};
  const logGroup = String(
    resolveValue(template, logging.LogGroup ?? `/aws/lambda/${functionId}`, override),
  );
  return {
    PATH: '/var/lang/bin:/usr/local/bin:/usr/bin/:/bin:/opt/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: directory,
    AWS_EXECUTION_ENV: `AWS_Lambda_${props.Runtime}`,
    AWS_REGION: DEPLOY_REGION,
    AWS_DEFAULT_REGION: DEPLOY_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_AWS_SETTINGS.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_AWS_SETTINGS.credentials.secretAccessKey,
    AWS_SESSION_TOKEN: 'local',
    AWS_LAMBDA_FUNCTION_NAME: deployedAttribute(template, functionId),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(props.MemorySize ?? 128),
    AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/11/27/[$LATEST]0123456789abcdef',
    ...(logging.LogFormat === undefined ? {} : { AWS_LAMBDA_LOG_FORMAT: logging.LogFormat }),
    ...(logging.ApplicationLogLevel === undefined
      ? {}
      : { AWS_LAMBDA_LOG_LEVEL: logging.ApplicationLogLevel }),
    ...variables,
    AWS_ENDPOINT_URL_SQS: endpoints.SQS,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.SECRETS_MANAGER,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.DYNAMODB,
    AWS_ENDPOINT_URL_FIREHOSE: endpoints.FIREHOSE,
  };
}

/**
 * Starts a function's bundle from the cloud assembly (`asset.<hash>/` named by the function's
 * `Code.S3Key`) on this Node.js (`process.execPath`: CI runs the suite on Node 20 and on Node 24,
 * the functions' runtime) with exactly `environment`.
 * @param template - the synthesized template
 * @param functionId - the function's logical id
 * @param assemblyDirectory - the cloud assembly
 * @param environment - from {@link lambdaEnvironment}
 */
export function startBundledFunction(
  template: CfnTemplate,
  functionId: string,
  assemblyDirectory: string,
  environment: Record<string, string>,
): BundledFunction {
  const props = template.Resources[functionId]?.Properties ?? {};
  const directory = bundleDirectory(template, functionId, assemblyDirectory);
  const [file, exported] = String(props.Handler).split('.');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      RUNTIME,
      join(directory, `${file}.mjs`),
      String(exported),
      String((props.Timeout ?? 3) * 1000),
      deployedAttribute(template, functionId, 'Arn'),
    ],
    { cwd: directory, env: environment, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] },
  );
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  let errors = '';
  // Lambda sends both streams to the function's log group (warnings are written to stderr).
  child.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
    errors += chunk.toString('utf8');
  });
  const waiting = new Map<string, (answer: { result?: unknown; error?: string }) => void>();
  createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => {
    const answer = JSON.parse(line) as { id: string; result?: unknown; error?: string };
    waiting.get(answer.id)?.(answer);
    waiting.delete(answer.id);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const settle of waiting.values()) settle({ error: `the process ended: ${errors}` });
  });
  let count = 0;
  return {
    environment,
    async invoke(event) {
      count += 1;
      const id = `invocation-${count}`;
      const from = printed.length;
      const answer = await new Promise<{ result?: unknown; error?: string }>((resolve) => {
        waiting.set(id, resolve);
        child.stdin?.write(`${JSON.stringify({ id, event })}\n`);
      });
      if (answer.error !== undefined) throw new Error(answer.error);
      // The answer line and what was printed before it travel on different pipes: give stdout a
      // turn of the event loop to catch up.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { result: answer.result, output: printed.slice(from) };
    },
    output: () => printed,
    async close() {
      child.stdin?.end();
      child.kill();
      await exited;
    },
  };
}

/** Directory of a function's bundled code in the cloud assembly. */
export function bundleDirectory(
  template: CfnTemplate,
  functionId: string,
  assemblyDirectory: string,
): string {
  const s3Key = String(template.Resources[functionId]?.Properties?.Code?.S3Key);
  return join(assemblyDirectory, `asset.${s3Key.replace(/\.zip$/, '')}`);
}
