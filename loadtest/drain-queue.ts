import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { bodyDigest } from './run-load.js';

/** A message taken off the queue, reduced to what the accounting compares. */
export interface DrainedMessage {
  /** SHA-256 hex of the body. */
  readonly digest: string;
  /** The `dedup_key` attribute (standard queues). */
  readonly dedupKey: string | undefined;
}

/** What {@link drainQueue} found. */
export interface DrainedQueue {
  /** Messages of this run, received and deleted. */
  readonly messages: DrainedMessage[];
  /** Messages not sent by this run: received but left in the queue (visible again after 60 s). */
  readonly foreign: number;
}

/** Options of {@link drainQueue}. */
export interface DrainQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
  /** Whether a body belongs to this run; only those are deleted. */
  readonly isOurs: (body: string) => boolean;
  /**
   * Upper bound on receive calls, so a queue that keeps filling cannot hold the run forever.
   * @default 10000
   */
  readonly maxReceives?: number;
}

/** Receivers working in parallel: each receive takes up to 10 messages. */
const RECEIVERS = 4;

/**
 * Receives every visible message and deletes the ones `isOurs` accepts, until a receive comes
 * back empty. Other messages are only counted: they belong to someone else's test, and stay
 * invisible for 60 s so the drain does not see them twice.
 *
 * @param options - client, queue and ownership test
 */
export async function drainQueue(options: DrainQueueOptions): Promise<DrainedQueue> {
  const messages: DrainedMessage[] = [];
  let foreign = 0;
  let receivesLeft = options.maxReceives ?? 10_000;
  const receiver = async (): Promise<void> => {
    while (receivesLeft > 0) {
      receivesLeft -= 1;
      const { Messages = [] } = await options.client.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 60,
          MessageAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) return;
      const ours = Messages.filter((message) => options.isOurs(message.Body ?? ''));
      foreign += Messages.length - ours.length;
      messages.push(...ours.map(drained));
      if (ours.length > 0) await deleteMessages(options, ours);
    }
  };
  await Promise.all(Array.from({ length: RECEIVERS }, receiver));
  return { messages, foreign };
}

function drained(message: Message): DrainedMessage {
  return {
    digest: bodyDigest(message.Body ?? ''),
    dedupKey: message.MessageAttributes?.dedup_key?.StringValue,
  };
}

async function deleteMessages(options: DrainQueueOptions, messages: Message[]): Promise<void> {
  const { Failed = [] } = await options.client.send(
    new DeleteMessageBatchCommand({
      QueueUrl: options.queueUrl,
      Entries: messages.map((message, index) => ({
        Id: String(index),
        ReceiptHandle: message.ReceiptHandle,
      })),
    }),
  );
  if (Failed.length > 0) {
    throw new Error(`DeleteMessageBatch failed for ${Failed.length} messages: ${Failed[0]?.Code}`);
  }
}
