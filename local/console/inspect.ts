/**
 * `npm run inspect`: the operator's console. Serves the inspector's page on loopback over a
 * deployed receiver's archive and queues (`--stack`), or over a running `npm start`'s
 * (`--local`), from this machine: nothing runs in AWS, nothing is written there but the replays
 * and redrives the operator confirms.
 * @module
 */
import { resolve } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DOTENV_FILE, findWebhookSecret } from '../../devkit/dotenv.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../../devkit/exit-status.js';
import { LOCAL_PORTS, portFrom } from '../../devkit/local-run.js';
import {
  type AwsAccess,
  LOCAL_REFUSED_HINT,
  localTarget,
  type ReceiverTarget,
  stackTarget,
} from '../../devkit/receiver-target.js';
import { readSecretIdKey } from '../../devkit/signing-key.js';
import { lookupEndpointSecretArn } from '../../devkit/stack-outputs.js';
import {
  isEntryPoint,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
} from '../../devkit/tool-io.js';
import {
  DEFAULT_STACK_NAME,
  endpointKeyVariable,
  LOCAL_KEY_VARIABLE,
  STACK_OUTPUTS,
} from '../../lambda/contract/endpoints.js';
import { ArchiveSource, type KeyFinder } from './archive-source.js';
import { type RunningConsole, startConsole } from './console-server.js';

/** The console's port when `--port` is not given. */
const DEFAULT_CONSOLE_PORT = 3100;

const USAGE = `Usage: npm run inspect -- (--stack <name> | --local) [--port <port>] [--profile <name>] [--region <region>]

Serves the inspector page on http://127.0.0.1:<port>/_inspector over a receiver's archive of
deliveries and its queues: the deliveries of a time window (the last hour by default), one
delivery's headers, exact body and verdict, a replay of one or of the filtered selection into the
queue (as npm run replay does), the dead-letter queue's messages and their redrive (as npm run
redrive does). Replays and redrives happen only when confirmed in the page.

  --stack NAME      a deployed stack (cdk deploy names it ${DEFAULT_STACK_NAME}): its ${STACK_OUTPUTS.archiveBucketName},
                    ${STACK_OUTPUTS.queueUrl} and ${STACK_OUTPUTS.deadLetterQueueUrl} outputs, read through CloudFormation with the
                    AWS SDK's usual credentials and region
  --local           a running npm start: its archive and queues on ${LOCAL_PORTS.archive.variable} and ${LOCAL_PORTS.queue.variable} (defaults
                    ${LOCAL_PORTS.archive.default}, ${LOCAL_PORTS.queue.default}), the archive's credentials in its state folder
                    (LOCAL_STATE_DIR, as npm start was given it), its keys in .env; it takes no lock of npm start's
  --port PORT       the console's port on 127.0.0.1 (default ${DEFAULT_CONSOLE_PORT}; 0 picks a free one)
  --profile NAME    with --stack: the AWS profile (else AWS_PROFILE or the default chain)
  --region REGION   with --stack: the AWS region (else AWS_REGION or the profile's)
  --help            show this help

Prints "Inspector: http://127.0.0.1:<port>/_inspector" when ready; Ctrl-C stops it. Bodies are
personal data: they are shown on this machine's page only, never printed.

${EXIT_STATUS_USAGE}`;

interface InspectOptions {
  readonly stack: string | undefined;
  readonly port: number;
  readonly access: AwsAccess;
}

/**
 * Runs the console with command-line `args` until `stop` aborts; resolves with the exit status.
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and project directory
 * @param stop - stops the console (Ctrl-C at the entry point)
 * @param onReady - called with the running console (tests)
 */
export function main(
  args: readonly string[],
  io: ToolIo,
  stop: AbortSignal,
  onReady: (running: RunningConsole) => void = () => {},
): Promise<number> {
  return runTool(
    io,
    { name: 'inspect', usage: USAGE },
    () => parseOptions(args, io.env),
    async (options) => {
      const target = await findTarget(options, io);
      const s3 = target.s3();
      const sqs = target.sqs();
      try {
        const queue = {
          client: sqs,
          url: target.queueUrl ?? '',
          timeoutMs: io.networkTimeoutMs,
          ...(target.local ? { refusedHint: LOCAL_REFUSED_HINT } : {}),
        };
        const running = await startConsole({
          port: options.port,
          targetName: target.name,
          archive:
            target.bucket === undefined || target.queueUrl === undefined
              ? undefined
              : new ArchiveSource({
                  s3,
                  bucket: target.bucket,
                  queue,
                  keyOf: keyFinder(target, options, io),
                }),
          queues:
            target.queueUrl === undefined || target.deadLetterUrl === undefined
              ? undefined
              : {
                  client: sqs,
                  queueUrl: target.queueUrl,
                  deadLetterUrl: target.deadLetterUrl,
                  timeoutMs: io.networkTimeoutMs,
                  answerOnceStarted: !target.local,
                },
          // The kind and message only: an SDK error carries no body, a stack would say little.
          onError: (error) =>
            io.err(`inspect: ${(error as Error).name}: ${(error as Error).message}`),
        }).catch((error: NodeJS.ErrnoException) => {
          throw new ToolError(
            error.code === 'EADDRINUSE'
              ? `port ${options.port} is in use: choose another with --port`
              : `cannot listen on 127.0.0.1:${options.port}: ${error.message}`,
            EXIT_STATUS.refused,
          );
        });
        io.out(`Inspector: ${running.url}`);
        onReady(running);
        await new Promise<void>((resolveStop) => {
          if (stop.aborted) resolveStop();
          stop.addEventListener('abort', () => resolveStop(), { once: true });
        });
        await running.close();
        return EXIT_STATUS.ok;
      } finally {
        s3.destroy();
        sqs.destroy();
      }
    },
  );
}

/** The receiver's archive and queues: the stack's outputs, or the local run's ports. */
async function findTarget(options: InspectOptions, io: ToolIo): Promise<ReceiverTarget> {
  if (options.stack === undefined) return localTarget(io.env, io.projectDir);
  try {
    return await stackTarget(options.stack, io.env, io.networkTimeoutMs, options.access);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const { name, message } = error as Error;
    throw new ToolError(
      /Region is missing/.test(message)
        ? 'no AWS region: pass --region, or set AWS_REGION (or a profile with a region)'
        : `CloudFormation: ${name}: ${message} (check --stack, the profile and the region)`,
      EXIT_STATUS.refused,
      { cause: error },
    );
  }
}

/**
 * Where a 401's diagnosis finds the endpoint's key: `.env` and the environment for the local run,
 * the endpoint's secret for a stack (`secretsmanager:GetSecretValue`, optional: without it the
 * page says why there is no diagnosis). The key is used, never shown or logged.
 */
function keyFinder(target: ReceiverTarget, options: InspectOptions, io: ToolIo): KeyFinder {
  if (target.local) {
    return async (endpointName) => {
      const variable = endpointName === '' ? LOCAL_KEY_VARIABLE : endpointKeyVariable(endpointName);
      const found = await findWebhookSecret(io.env, resolve(io.projectDir, DOTENV_FILE), variable);
      return found === undefined
        ? {
            unavailable: `no local key (${variable} in the environment or .env) to explain it with`,
          }
        : { key: found.secret, raw: found.secret, source: variable };
    };
  }
  return async (endpointName) => {
    const { outputs } = target;
    if (outputs === undefined) return { unavailable: 'the stack has no outputs' };
    const client = new SecretsManagerClient({ ...options.access });
    try {
      const arn = await lookupEndpointSecretArn(outputs, endpointName || undefined, client);
      if (!arn.ok) return { unavailable: arn.message };
      return await readSecretIdKey(arn.value, io, client);
    } catch (error) {
      return { unavailable: `the endpoint's key could not be read: ${(error as Error).message}` };
    } finally {
      client.destroy();
    }
  };
}

function parseOptions(args: readonly string[], env: NodeJS.ProcessEnv): InspectOptions | 'help' {
  const values = parseToolArgs(args, {
    stack: { type: 'string' },
    local: { type: 'boolean', default: false },
    port: { type: 'string' },
    profile: { type: 'string' },
    region: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if ((values.stack === undefined) === !values.local) {
    throw new UsageError('pass either --stack <name> or --local');
  }
  if (values.stack !== undefined && values.stack.trim() === '') {
    throw new UsageError('--stack needs the name of a deployed stack');
  }
  if (values.local && (values.profile !== undefined || values.region !== undefined)) {
    throw new UsageError('--profile and --region go with --stack');
  }
  const port = portFrom(
    values.port === undefined ? {} : { '--port': values.port },
    '--port',
    DEFAULT_CONSOLE_PORT,
  );
  // Read now, so a bad LOCAL_SQS_PORT or LOCAL_S3_PORT is a usage error.
  if (values.local) localTarget(env, '.');
  return {
    stack: values.stack,
    port,
    access: {
      ...(values.profile === undefined ? {} : { profile: values.profile }),
      ...(values.region === undefined ? {} : { region: values.region }),
    },
  };
}

if (isEntryPoint(import.meta.url)) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), processIo(), stop.signal);
}
