/**
 * `npm run redrive`: move the dead-letter queue's messages back to the queue the consumer reads,
 * on the local queues of `npm start` or a deployed stack's.
 * @module
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { wholeCountOption } from '../devkit/cli-options.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../devkit/exit-status.js';
import {
  DLQ_NAME,
  LOCAL_PORTS,
  localPort,
  localQueueUrl,
  QUEUE_NAME,
} from '../devkit/local-run.js';
import { withTimeout } from '../devkit/network.js';
import {
  RECEIVE_VISIBILITY_SECONDS,
  RedriveError,
  type RedriveOptions,
  type RedriveQueues,
  redrive,
} from '../devkit/redrive-core.js';
import { sqsClientFor } from '../devkit/sqs-client.js';
import { readStackOutputs } from '../devkit/stack-outputs.js';
import {
  isEntryPoint,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
} from '../devkit/tool-io.js';
import { DEFAULT_STACK_NAME, STACK_OUTPUTS } from '../lambda/contract/endpoints.js';

const USAGE = `Usage: npm run redrive -- [--stack NAME] [--max N] [--dry-run]

Moves the messages of the dead-letter queue (bookings the consumer failed on 5 times) back to
the queue the consumer reads, once the cause is fixed. Ends with "moved <n> messages".

  --stack NAME   a deployed stack (cdk deploy names it ${DEFAULT_STACK_NAME}): its ${STACK_OUTPUTS.queueUrl} and
                 ${STACK_OUTPUTS.deadLetterQueueUrl} outputs, read through CloudFormation (normal AWS
                 credentials and region apply); default: the local queues of npm start
                 (http://127.0.0.1:$${LOCAL_PORTS.queue.variable}, port default ${LOCAL_PORTS.queue.default})
  --max N        move at most N messages (by receive, send and delete, also on a standard queue:
                 SQS's move task cannot be told a count)
  --dry-run      show how many messages would move, and where, and move none
  --help         show this help

A standard queue is redriven by SQS itself (a message move task), with progress from the task's
status; Ctrl-C cancels the task: what moved stays moved, the rest stays in the dead-letter queue.
A FIFO queue is redriven message by message: received, sent with the same group and
deduplication id, and deleted from the dead-letter queue only after the send succeeded. An
interrupted run loses nothing: a message received but not sent reappears in the dead-letter
queue within ${RECEIVE_VISIBILITY_SECONDS} seconds, one sent but not yet deleted is in both queues, and the consumer's
idempotency (or the FIFO queue's deduplication) processes it once.

${EXIT_STATUS_USAGE}
A redrive that did not move every message (interrupted, a failed send) exits 1.`;

interface ToolOptions extends RedriveOptions {
  readonly stack: string | undefined;
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status (`EXIT_STATUS`: 1 also
 * when not every message moved).
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 * @param stop - interrupts the redrive (the entry point aborts it on Ctrl-C)
 */
export function main(
  args: readonly string[],
  io: ToolIo,
  stop: AbortSignal = new AbortController().signal,
): Promise<number> {
  return runTool(
    io,
    { name: 'redrive', usage: USAGE },
    () => parseOptions(args, io.env),
    async (options) => {
      try {
        const queues = await queuesOf(options.stack, io);
        const client = sqsClientFor(queues.sourceUrl, io.env);
        try {
          const result = await redrive(client, queues, options, io, stop);
          return result.complete ? EXIT_STATUS.ok : EXIT_STATUS.refused;
        } finally {
          client.destroy();
        }
      } catch (error) {
        if (error instanceof ToolError) throw error;
        throw new RedriveError(describeFailure(error, options.stack), { cause: error });
      }
    },
  );
}

/**
 * The queues of `--stack` (its `QueueUrl` and `DeadLetterQueueUrl` outputs), or of the local run.
 *
 * @throws {RedriveError} when the stack has no dead-letter queue output
 */
async function queuesOf(stack: string | undefined, io: ToolIo): Promise<RedriveQueues> {
  if (stack === undefined) {
    const port = localPort(io.env, 'queue');
    return {
      sourceUrl: localQueueUrl(port, QUEUE_NAME),
      deadLetterUrl: localQueueUrl(port, DLQ_NAME),
    };
  }
  const cloudFormation = new CloudFormationClient({});
  try {
    const { values } = await withTimeout('CloudFormation', io.networkTimeoutMs, (abortSignal) =>
      readStackOutputs(cloudFormation, stack, abortSignal),
    );
    const sourceUrl = values.get(STACK_OUTPUTS.queueUrl);
    const deadLetterUrl = values.get(STACK_OUTPUTS.deadLetterQueueUrl);
    if (sourceUrl === undefined || deadLetterUrl === undefined) {
      const missing =
        sourceUrl === undefined ? STACK_OUTPUTS.queueUrl : STACK_OUTPUTS.deadLetterQueueUrl;
      throw new RedriveError(
        `stack ${stack} has no ${missing} output: it is not a receiver stack, or its queue is an existing one whose dead-letter queue is yours to redrive`,
      );
    }
    return { sourceUrl, deadLetterUrl };
  } finally {
    cloudFormation.destroy();
  }
}

function parseOptions(args: readonly string[], env: NodeJS.ProcessEnv): ToolOptions | 'help' {
  const values = parseToolArgs(args, {
    stack: { type: 'string' },
    max: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values.stack !== undefined && values.stack.trim() === '') {
    throw new UsageError('--stack needs the name of a deployed stack');
  }
  const max = wholeCountOption('--max', values.max, 'messages');
  // Read now, so a bad LOCAL_SQS_PORT is a usage error rather than a failure.
  if (values.stack === undefined) localPort(env, 'queue');
  return {
    stack: values.stack,
    ...(max === undefined ? {} : { max: Number(max) }),
    dryRun: values['dry-run'],
    pollMs: values.stack === undefined ? 250 : 2000,
  };
}

/** AWS's refusal in one line. */
function describeFailure(error: unknown, stack: string | undefined): string {
  const { name, message } = error as Error;
  if (name === 'ValidationError' && stack !== undefined) {
    return `CloudFormation: ${message} (check --stack and the AWS region)`;
  }
  if (name === 'CredentialsProviderError') {
    return `No AWS credentials: ${message}`;
  }
  if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') {
    return `A queue does not exist: ${message}`;
  }
  return `${name}: ${message}`;
}

if (isEntryPoint(import.meta.url)) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), processIo(), stop.signal);
}
