/**
 * `npm run redrive`: move the dead-letter queue's messages back to the queue the consumer reads,
 * on the local queues of `npm start` or a deployed stack's.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  CancelMessageMoveTaskCommand,
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
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
import { isLoopbackUrl, sqsClientFor } from '../devkit/sqs-client.js';
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

/** Seconds a message received for moving stays hidden: an interrupted run's are back this soon. */
export const RECEIVE_VISIBILITY_SECONDS = 60;

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

/** The two queues of a redrive. */
export interface RedriveQueues {
  /** The queue the consumer reads, where the messages go back to. */
  readonly sourceUrl: string;
  /** Its dead-letter queue, emptied. */
  readonly deadLetterUrl: string;
}

/** What to move and how to report it. */
export interface RedriveOptions {
  /** Move at most this many messages (always message by message). */
  readonly max?: number;
  readonly dryRun: boolean;
  /** Milliseconds between two reads of a move task's status. */
  readonly pollMs: number;
}

/** The result of a redrive: how many moved, and whether every message that should have did. */
export interface RedriveResult {
  readonly moved: number;
  readonly complete: boolean;
}

/** A redrive that could not start or could not go on (exit 1): the message says why, in one line. */
export class RedriveError extends ToolError {
  /** @param message - what SQS or CloudFormation refused, in one line */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, EXIT_STATUS.refused, options);
  }
}

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
 * Moves the dead-letter queue's messages back: by SQS's move task for a standard queue without
 * `max`, else message by message. Prints progress on stderr and `moved <n> messages` on stdout
 * (`--dry-run`: what would move).
 *
 * @param client - an SQS client for both queues
 * @param queues - the source queue and its dead-letter queue
 * @param options - count limit, dry run, polling
 * @param io - where lines go
 * @param stop - aborting it interrupts the redrive, losing nothing
 * @throws {RedriveError} when SQS refuses to start or to go on
 */
export async function redrive(
  client: SQSClient,
  queues: RedriveQueues,
  options: RedriveOptions,
  io: ToolIo,
  stop: AbortSignal,
): Promise<RedriveResult> {
  const sqs: Sqs = {
    client,
    call: (queueUrl, call, waitMs = 0) =>
      withTimeout(queueUrl, waitMs + io.networkTimeoutMs, call, { refusedHint: REFUSED_HINT }),
  };
  const fifo = queues.deadLetterUrl.endsWith('.fifo');
  const byMessage = fifo || options.max !== undefined;
  if (options.dryRun) {
    const waiting = await visibleMessages(sqs, queues.deadLetterUrl);
    const count = options.max === undefined ? waiting : Math.min(waiting, options.max);
    io.err(
      `${queues.deadLetterUrl} holds about ${waiting} messages; they would move to ${queues.sourceUrl} ${byMessage ? 'message by message (receive, send, delete)' : 'by an SQS message move task'}`,
    );
    io.out(`dry run: would move about ${count} messages`);
    return { moved: 0, complete: true };
  }
  const result = byMessage
    ? await moveByMessage(sqs, queues, fifo, options.max, io, stop)
    : await moveByTask(sqs, queues, options.pollMs, io, stop);
  io.out(`moved ${result.moved} messages`);
  return result;
}

/** What a call to the local queue that finds nothing listening should say. */
const REFUSED_HINT = 'start the local receiver with npm start, or pass --stack';

/** An SQS client and the tools' network timeout around each of its calls. */
interface Sqs {
  readonly client: SQSClient;
  /**
   * One call within the tools' timeout (plus `waitMs` of long polling); a connection failure or
   * no answer is a `NetworkError` (exit 4). In-flight calls are not cut short by Ctrl-C: the
   * redrive checks `stop` between steps, so a send is never left half-known.
   */
  readonly call: <T>(
    queueUrl: string,
    call: (abortSignal: AbortSignal) => Promise<T>,
    waitMs?: number,
  ) => Promise<T>;
}

/** Standard queue: SQS moves the messages; the tool starts the task and reports its status. */
async function moveByTask(
  sqs: Sqs,
  queues: RedriveQueues,
  pollMs: number,
  io: ToolIo,
  stop: AbortSignal,
): Promise<RedriveResult> {
  const [sourceArn, deadLetterArn] = await Promise.all([
    queueArn(sqs, queues.sourceUrl),
    queueArn(sqs, queues.deadLetterUrl),
  ]);
  const { TaskHandle } = await sqs.call(queues.deadLetterUrl, (abortSignal) =>
    sqs.client.send(
      new StartMessageMoveTaskCommand({ SourceArn: deadLetterArn, DestinationArn: sourceArn }),
      { abortSignal },
    ),
  );
  io.err(`SQS message move task started: ${queues.deadLetterUrl} -> ${queues.sourceUrl}`);
  let cancelled = false;
  let reported = -1;
  for (;;) {
    if (stop.aborted && !cancelled && TaskHandle !== undefined) {
      cancelled = true;
      io.err('interrupted: cancelling the move task; what moved stays moved');
      await sqs
        .call(queues.deadLetterUrl, (abortSignal) =>
          sqs.client.send(new CancelMessageMoveTaskCommand({ TaskHandle }), { abortSignal }),
        )
        .catch((error: Error) => io.err(`could not cancel the task: ${error.message}`));
    }
    const { Results } = await sqs.call(queues.deadLetterUrl, (abortSignal) =>
      sqs.client.send(
        new ListMessageMoveTasksCommand({ SourceArn: deadLetterArn, MaxResults: 1 }),
        { abortSignal },
      ),
    );
    const task = Results?.[0];
    const moved = task?.ApproximateNumberOfMessagesMoved ?? 0;
    if (moved !== reported) {
      io.err(`moving: ${moved} of about ${task?.ApproximateNumberOfMessagesToMove ?? '?'}`);
      reported = moved;
    }
    switch (task?.Status) {
      case 'COMPLETED':
        return { moved, complete: !cancelled };
      case 'CANCELLED':
        return { moved, complete: false };
      case 'FAILED':
        throw new RedriveError(
          `the move task failed after ${moved} messages: ${task.FailureReason ?? 'no reason given'}`,
        );
      default:
        // Waiting is not interrupted by Ctrl-C: the loop must still cancel and read the result.
        await sleep(pollMs);
    }
  }
}

/**
 * Message by message: receive up to ten, send each with its body, attributes, group and
 * deduplication id, delete each only after its send succeeded. A failed send stops the run and
 * hands the messages not yet sent back to the dead-letter queue.
 */
async function moveByMessage(
  sqs: Sqs,
  queues: RedriveQueues,
  fifo: boolean,
  max: number | undefined,
  io: ToolIo,
  stop: AbortSignal,
): Promise<RedriveResult> {
  let moved = 0;
  const waitTimeSeconds = isLoopbackUrl(queues.deadLetterUrl) ? 0 : 1;
  while (max === undefined || moved < max) {
    if (stop.aborted) return interrupted(moved, io);
    const { Messages = [] } = await sqs.call(
      queues.deadLetterUrl,
      (abortSignal) =>
        sqs.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queues.deadLetterUrl,
            MaxNumberOfMessages: Math.min(10, max === undefined ? 10 : max - moved),
            WaitTimeSeconds: waitTimeSeconds,
            VisibilityTimeout: RECEIVE_VISIBILITY_SECONDS,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'],
            // The embedded queue returns system attributes for this older name only.
            AttributeNames: ['All'],
          }),
          { abortSignal },
        ),
      waitTimeSeconds * 1000,
    );
    if (Messages.length === 0) return { moved, complete: true };
    for (const [index, message] of Messages.entries()) {
      if (stop.aborted) {
        await release(sqs, queues.deadLetterUrl, Messages.slice(index));
        return interrupted(moved, io);
      }
      try {
        await sqs.call(queues.sourceUrl, (abortSignal) =>
          sqs.client.send(new SendMessageCommand(sendInput(queues.sourceUrl, message, fifo)), {
            abortSignal,
          }),
        );
      } catch (error) {
        await release(sqs, queues.deadLetterUrl, Messages.slice(index));
        throw new RedriveError(
          `sending message ${message.MessageId} back failed after ${moved} moved (it stays in the dead-letter queue): ${(error as Error).message}`,
          { cause: error },
        );
      }
      await sqs.call(queues.deadLetterUrl, (abortSignal) =>
        sqs.client.send(
          new DeleteMessageCommand({
            QueueUrl: queues.deadLetterUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
          { abortSignal },
        ),
      );
      moved += 1;
      if (moved % PROGRESS_EVERY === 0) io.err(`moving: ${moved} so far`);
    }
  }
  return { moved, complete: true };
}

/** Messages between two progress lines of a message-by-message redrive. */
const PROGRESS_EVERY = 100;

function interrupted(moved: number, io: ToolIo): RedriveResult {
  io.err(`interrupted after ${moved} messages; the rest stay in the dead-letter queue`);
  return { moved, complete: false };
}

/** The received message as it was first sent: body, attributes, and on FIFO its group and id. */
function sendInput(queueUrl: string, message: Message, fifo: boolean) {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    attributes[name] = {
      DataType: value.DataType,
      ...(value.StringValue === undefined ? {} : { StringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { BinaryValue: value.BinaryValue }),
    };
  }
  return {
    QueueUrl: queueUrl,
    MessageBody: message.Body,
    ...(Object.keys(attributes).length === 0 ? {} : { MessageAttributes: attributes }),
    ...(fifo
      ? {
          MessageGroupId: message.Attributes?.MessageGroupId,
          MessageDeduplicationId: message.Attributes?.MessageDeduplicationId,
        }
      : {}),
  };
}

/** Makes received messages visible again at once, best effort (else they are in 60 s). */
async function release(sqs: Sqs, queueUrl: string, messages: Message[]): Promise<void> {
  if (messages.length === 0) return;
  await sqs
    .call(queueUrl, (abortSignal) =>
      sqs.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
        { abortSignal },
      ),
    )
    .catch(() => undefined);
}

async function queueArn(sqs: Sqs, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.call(queueUrl, (abortSignal) =>
    sqs.client.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
      { abortSignal },
    ),
  );
  const arn = Attributes?.QueueArn;
  if (arn === undefined) throw new RedriveError(`no QueueArn for ${queueUrl}`);
  return arn;
}

async function visibleMessages(sqs: Sqs, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.call(queueUrl, (abortSignal) =>
    sqs.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
      { abortSignal },
    ),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0);
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
