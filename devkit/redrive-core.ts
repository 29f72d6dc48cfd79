/**
 * The redrive of a dead-letter queue back to the queue the consumer reads, shared by
 * `npm run redrive` and the operator's console (`npm run inspect`): SQS's message move task for a
 * standard queue, message by message (receive, send, delete) for a FIFO queue or a count.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import { EXIT_STATUS, ToolError } from './exit-status.js';
import { withTimeout } from './network.js';
import { LOCAL_REFUSED_HINT } from './receiver-target.js';
import { isLoopbackUrl } from './sqs-client.js';
import type { ToolIo } from './tool-io.js';

/** Seconds a message received for moving stays hidden: an interrupted run's are back this soon. */
export const RECEIVE_VISIBILITY_SECONDS = 60;

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
  /**
   * Return as soon as SQS's move task has started rather than when it has moved everything (the
   * console, which answers at once and says so); message by message always waits.
   */
  readonly untilTaskStarted?: boolean;
}

/** The result of a redrive: how many moved, and whether every message that should have did. */
export interface RedriveResult {
  readonly moved: number;
  readonly complete: boolean;
  /** Set when the redrive returned once SQS's move task started (`untilTaskStarted`). */
  readonly taskStarted?: true;
}

/** A redrive that could not start or could not go on (exit 1): the message says why, in one line. */
export class RedriveError extends ToolError {
  /** @param message - what SQS or CloudFormation refused, in one line */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, EXIT_STATUS.refused, options);
  }
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
    : await moveByTask(sqs, queues, options, io, stop);
  io.out(`moved ${result.moved} messages`);
  return result;
}

/** What a call to the local queue that finds nothing listening should say. */
const REFUSED_HINT = LOCAL_REFUSED_HINT;

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
  { pollMs, untilTaskStarted }: RedriveOptions,
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
  if (untilTaskStarted) return { moved: 0, complete: false, taskStarted: true };
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
