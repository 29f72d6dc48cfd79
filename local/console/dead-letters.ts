/**
 * The console's dead letters: the dead-letter queue's messages listed without taking them
 * (received to be read, then made visible again at once), and the redrive of all of them through
 * the redrive tool's own code.
 * @module
 */

import { Readable } from 'node:stream';
import {
  ChangeMessageVisibilityBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { withTimeout } from '../../devkit/network.js';
import { type RedriveResult, redrive } from '../../devkit/redrive-core.js';
import type { ToolIo } from '../../devkit/tool-io.js';

/** The most dead letters one listing shows. */
export const MAX_LISTED_DEAD_LETTERS = 100;

/**
 * Seconds a listed message is hidden while the listing pages through the queue (so that each
 * receive returns others): it is made visible again before the listing answers, and within this
 * bound should that fail.
 */
const LISTING_VISIBILITY_SECONDS = 30;

/** One dead letter as the page shows it. */
export interface DeadLetter {
  readonly messageId: string;
  readonly body: string;
  /** Message attributes, name -> string value (a binary one as base64). */
  readonly attributes: Readonly<Record<string, string>>;
  /** Times it was received, the console's own listings included. */
  readonly receiveCount: number;
  /** When it was first received (by the consumer, before it failed), ISO 8601. */
  readonly firstReceivedAt?: string;
  /** When it was sent to the queue it failed in, ISO 8601. */
  readonly sentAt?: string;
}

/** The queues of a receiver, a client for them and how long a call may take. */
export interface DeadLetterQueues {
  readonly client: SQSClient;
  readonly queueUrl: string;
  readonly deadLetterUrl: string;
  readonly timeoutMs: number;
  /** Whether SQS's move task may answer before it has moved everything (a deployed queue). */
  readonly answerOnceStarted: boolean;
}

/**
 * Up to {@link MAX_LISTED_DEAD_LETTERS} messages of the dead-letter queue, each once. They are
 * received to be read and made visible again (`ChangeMessageVisibility` 0) before this resolves,
 * so a redrive right after finds them all. Each listing adds one to their receive count; the
 * dead-letter queue has no redrive policy of its own, so no count moves them anywhere.
 */
export async function listDeadLetters(queues: DeadLetterQueues): Promise<DeadLetter[]> {
  const { client, deadLetterUrl, timeoutMs } = queues;
  const received: Message[] = [];
  const seen = new Set<string>();
  try {
    while (received.length < MAX_LISTED_DEAD_LETTERS) {
      const { Messages = [] } = await withTimeout(deadLetterUrl, timeoutMs, (abortSignal) =>
        client.send(
          new ReceiveMessageCommand({
            QueueUrl: deadLetterUrl,
            MaxNumberOfMessages: Math.min(10, MAX_LISTED_DEAD_LETTERS - received.length),
            VisibilityTimeout: LISTING_VISIBILITY_SECONDS,
            WaitTimeSeconds: 0,
            MessageAttributeNames: ['All'],
            // The embedded queue returns system attributes for this older name only.
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal },
        ),
      );
      const fresh = Messages.filter(({ MessageId }) => !seen.has(MessageId ?? ''));
      if (fresh.length === 0) break;
      for (const message of fresh) seen.add(message.MessageId ?? '');
      received.push(...fresh);
    }
  } finally {
    await makeVisible(queues, received);
  }
  return received.map(deadLetterOf);
}

/** Makes received messages visible again at once, ten at a time. */
async function makeVisible(queues: DeadLetterQueues, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const batch = messages.slice(start, start + 10);
    await withTimeout(queues.deadLetterUrl, queues.timeoutMs, (abortSignal) =>
      queues.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queues.deadLetterUrl,
          Entries: batch.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
        }),
        { abortSignal },
      ),
    );
  }
}

function deadLetterOf(message: Message): DeadLetter {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    attributes[name] =
      value.StringValue ?? Buffer.from(value.BinaryValue ?? new Uint8Array()).toString('base64');
  }
  const system = message.Attributes ?? {};
  const time = (ms: string | undefined) =>
    ms === undefined || !/^\d+$/.test(ms) ? undefined : new Date(Number(ms)).toISOString();
  const firstReceivedAt = time(system.ApproximateFirstReceiveTimestamp);
  const sentAt = time(system.SentTimestamp);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    attributes,
    receiveCount: Number(system.ApproximateReceiveCount ?? 0),
    ...(firstReceivedAt === undefined ? {} : { firstReceivedAt }),
    ...(sentAt === undefined ? {} : { sentAt }),
  };
}

/** What a redrive from the console did, in words for the page. */
export interface RedriveAnswer extends RedriveResult {
  /** What happened: moved, or a move task started that goes on without the console. */
  readonly message: string;
}

/**
 * Moves every dead letter back to the queue the consumer reads, as `npm run redrive` does. On a
 * deployed standard queue SQS's move task does it: the answer comes once it has started.
 */
export async function redriveDeadLetters(queues: DeadLetterQueues): Promise<RedriveAnswer> {
  const lines: string[] = [];
  const io: ToolIo = {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
    env: {},
    stdin: Readable.from([]),
    cwd: '',
    projectDir: '',
    networkTimeoutMs: queues.timeoutMs,
  };
  const result = await redrive(
    queues.client,
    { sourceUrl: queues.queueUrl, deadLetterUrl: queues.deadLetterUrl },
    { dryRun: false, pollMs: 250, untilTaskStarted: queues.answerOnceStarted },
    io,
    new AbortController().signal,
  );
  const message = result.taskStarted
    ? `SQS message move task started: the dead letters move to ${queues.queueUrl} over the next minutes (list the dead letters again to follow it)`
    : `moved ${result.moved} messages to ${queues.queueUrl}`;
  return { ...result, message };
}
