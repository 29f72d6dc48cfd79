import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { withTimeout } from '../../devkit/network.js';
import { isLoopbackUrl, sqsClientFor } from '../../devkit/sqs-client.js';
import { awsStep } from '../../devkit/stack-outputs.js';
import { type ToolIo, urlWithoutPassword } from '../../devkit/tool-io.js';
import { pauseUntil, SmokeFailedError } from './watch.js';

/**
 * The smoke's wait in a queue: it takes only its own booking and leaves every other message as
 * it found it, and refuses a queue where others wait.
 * @module
 */

/** A queue the smoke receives from, and how long one call may take. */
interface WatchedQueue {
  readonly client: SQSClient;
  readonly url: string;
  readonly timeoutMs: number;
}

/** The embedded queue answers a short poll with every message; SQS's long poll costs nothing. */
const LOCAL_POLL_MS = 250;
const AWS_WAIT_SECONDS = 5;

/**
 * Receives from the queue until the smoke booking (matched by its exact body) arrives, then
 * deletes it, and only it. Every other message received on the way is held invisible until the
 * smoke ends and then released at once (visibility 0): releasing each straight away would have
 * the next receive return it again, counting one more receive towards the queue's
 * `maxReceiveCount` each time (5 moves it to the dead-letter queue) and never reaching the smoke
 * booking behind a backlog. Held messages are received with a visibility timeout that ends
 * shortly after `deadline`, so they come back on their own if the tool is killed. Needs
 * `sqs:ReceiveMessage`, `sqs:DeleteMessage` and `sqs:ChangeMessageVisibility` on the queue.
 *
 * @returns whether the smoke booking was received (and deleted)
 */
export async function waitInQueue(
  queueUrl: string,
  body: string,
  deadline: number,
  io: ToolIo,
  stop: AbortSignal,
): Promise<boolean> {
  const queue: WatchedQueue = {
    client: sqsClientFor(queueUrl, io.env),
    url: queueUrl,
    timeoutMs: io.networkTimeoutMs,
  };
  const local = isLoopbackUrl(queueUrl);
  const held: Message[] = [];
  try {
    for (;;) {
      const leftSeconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      const waitSeconds = local ? 0 : Math.max(0, Math.min(AWS_WAIT_SECONDS, leftSeconds - 1));
      const messages = await receive(queue, waitSeconds, leftSeconds + 5);
      const own = messages.find((message) => message.Body === body);
      held.push(...messages.filter((message) => message !== own));
      if (own !== undefined) {
        await queueStep(
          queue,
          `Could not delete from ${urlWithoutPassword(queue.url)}`,
          (abortSignal) =>
            queue.client.send(
              new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: own.ReceiptHandle }),
              { abortSignal },
            ),
        );
        io.out(`seen in queue: message ${own.MessageId}, deleted`);
        return true;
      }
      const pauseMs = local && messages.length === 0 ? LOCAL_POLL_MS : 0;
      if (!(await pauseUntil(pauseMs, deadline, stop))) return false;
    }
  } finally {
    await release(queue, held, io);
    queue.client.destroy();
  }
}

/**
 * Refuses, before anything is sent, to wait in a queue where other messages wait or are being
 * processed: the wait receives every message ahead of the smoke booking, and each receive counts
 * towards the queue's `maxReceiveCount` (5 moves a message to the dead-letter queue), so smoke
 * runs against a backlog would dead-letter genuine bookings. Needs `sqs:GetQueueAttributes`.
 *
 * @throws {SmokeFailedError} naming how many messages wait
 */
export async function refuseBusyQueue(queueUrl: string, io: ToolIo): Promise<void> {
  const client = sqsClientFor(queueUrl, io.env);
  try {
    const { Attributes = {} } = await withTimeout(
      `Could not read the attributes of ${urlWithoutPassword(queueUrl)}`,
      io.networkTimeoutMs,
      (abortSignal) =>
        client.send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
            ],
          }),
          { abortSignal },
        ),
    );
    const waiting =
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    if (waiting > 0) {
      throw new SmokeFailedError(
        `smoke failed: ${waiting} other message(s) wait in ${urlWithoutPassword(queueUrl)}, and waiting there would receive each of them once more (5 receives move a message to the dead-letter queue); nothing was sent: consume them first, or wait in a log group with --log-group`,
      );
    }
  } finally {
    client.destroy();
  }
}

async function receive(
  queue: WatchedQueue,
  waitSeconds: number,
  visibilitySeconds: number,
): Promise<Message[]> {
  const received = await queueStep(
    queue,
    `Could not read ${urlWithoutPassword(queue.url)}`,
    (abortSignal) =>
      queue.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: visibilitySeconds,
        }),
        { abortSignal },
      ),
    waitSeconds * 1000,
  );
  return received.Messages ?? [];
}

/**
 * Makes the held messages visible again, ten per call. A failure is reported, not fatal: they
 * come back by themselves when their visibility timeout ends.
 */
async function release(queue: WatchedQueue, held: readonly Message[], io: ToolIo): Promise<void> {
  if (held.length === 0) return;
  let failed = 0;
  for (let start = 0; start < held.length; start += 10) {
    const batch = held.slice(start, start + 10);
    try {
      const result = await queueStep(
        queue,
        `Could not release messages in ${urlWithoutPassword(queue.url)}`,
        (abortSignal) =>
          queue.client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queue.url,
              Entries: batch.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle,
                VisibilityTimeout: 0,
              })),
            }),
            { abortSignal },
          ),
      );
      failed += result.Failed?.length ?? 0;
    } catch {
      failed += batch.length;
    }
  }
  io.out(
    `released ${held.length - failed} other message(s), visible again in ${urlWithoutPassword(queue.url)}`,
  );
  if (failed > 0) {
    io.err(
      `${failed} other message(s) could not be released: they become visible again within --timeout + 5 s`,
    );
  }
}

/** One call to the queue within the network timeout (plus a long poll's wait); refusals are exit 1. */
function queueStep<T>(
  queue: WatchedQueue,
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
  waitMs = 0,
): Promise<T> {
  return awsStep(what, waitMs + queue.timeoutMs, call);
}
