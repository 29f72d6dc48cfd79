import {
  type MessageAttributeValue,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SendMessageCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { SQS_LIMITS } from '../contract/sqs-limits.js';
import { withAbortAfter } from './abort-after.js';
import { SinkSendError } from './decision/receive.js';
import type { SinkMessage } from './decision/sink-message.js';
import { BatchEntryError, turnBatches } from './turn-batches.js';

/** Options of {@link queueSink}. */
export interface QueueSinkOptions {
  /**
   * Upper bound for one send including the SDK's retries, in milliseconds, so a hung queue is
   * answered with 503 well within API Gateway's 29 s integration limit.
   * @default 5000
   */
  readonly deadlineMs?: number;
  /**
   * Clock in milliseconds, for per-call deadlines.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** A sink whose sends can be given a deadline (epoch milliseconds) per call. */
export interface QueueSink {
  /**
   * Sends the message, giving up at `deadlineAt` or after `deadlineMs`, whichever is sooner.
   * @throws {SinkSendError} when the queue did not take it
   */
  send(message: SinkMessage, deadlineAt?: number): Promise<void>;
}

/**
 * A message sink that sends to SQS. A queue URL ending in `.fifo` gets `MessageGroupId`
 * and `MessageDeduplicationId` (a sender's retry within SQS's 5-minute window is stored once);
 * a standard queue gets the same hash as a `dedup_key` attribute for consumer-side idempotency.
 * Every String attribute of the message is sent, so with named endpoints each message carries
 * `endpoint`, and both ids start with the endpoint name (built in the core, `buildMessage`).
 *
 * @param client - SQS client (its retry settings apply)
 * @param queueUrl - `QUEUE_URL`
 * @param options - deadline
 */
export function queueSink(
  client: SQSClient,
  queueUrl: string,
  options: QueueSinkOptions = {},
): QueueSink {
  const fifo = queueUrl.endsWith('.fifo');
  const deadlineMs = options.deadlineMs ?? 5000;
  const now = options.now ?? Date.now;
  const put = turnBatches<SendMessageCommandInput>(
    {
      limits: SEND_MESSAGE_BATCH_LIMITS,
      async one(input, timeLeft) {
        await withAbortAfter(timeLeft, (abortSignal) =>
          client.send(new SendMessageCommand(input), { abortSignal }),
        );
      },
      async many(inputs, timeLeft) {
        const output = await withAbortAfter(timeLeft, (abortSignal) =>
          client.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: inputs.map(({ QueueUrl: _, ...entry }, index) => ({
                Id: String(index),
                ...entry,
              })),
            }),
            { abortSignal },
          ),
        );
        const stored = new Set(output.Successful?.map((entry) => entry.Id));
        const failed = new Map(output.Failed?.map((entry) => [entry.Id, entry]));
        return inputs.map((_, index) => {
          const id = String(index);
          if (stored.has(id)) return undefined;
          const failure = failed.get(id);
          return {
            error: new BatchEntryError(failure?.Code ?? 'Missing', failure?.Message),
            // SQS's fault, or no word of the entry: as SendMessage alone would be, it is retried.
            retryAlone: failure?.SenderFault !== true,
          };
        });
      },
    },
    now,
  );
  return {
    async send(message: SinkMessage, deadlineAt?: number): Promise<void> {
      const ownDeadline = now() + deadlineMs;
      const failure = await put(
        sendMessageInput(queueUrl, fifo, message),
        deadlineAt === undefined ? ownDeadline : Math.min(ownDeadline, deadlineAt),
      );
      if (failure !== undefined) {
        throw new SinkSendError(`SendMessage to ${queueUrl} failed`, { cause: failure });
      }
    },
  };
}

/**
 * What one SendMessageBatch takes. An entry counts as SQS sizes a message: its body and its
 * attributes' names, types and values (FIFO ids do not count).
 */
const SEND_MESSAGE_BATCH_LIMITS = {
  items: SQS_LIMITS.batchEntries,
  bytes: SQS_LIMITS.messageBytes,
  bytesOf: (input: SendMessageCommandInput) =>
    Buffer.byteLength(input.MessageBody ?? '') +
    Object.entries(input.MessageAttributes ?? {}).reduce(
      (sum, [name, value]) =>
        sum +
        Buffer.byteLength(name) +
        Buffer.byteLength(value.DataType ?? '') +
        Buffer.byteLength(value.StringValue ?? ''),
      0,
    ),
};

/**
 * The SendMessage input of a message: the receiver's, and the replay's, which re-queues an
 * archived message exactly as the receiver first sent it.
 *
 * @param queueUrl - the queue
 * @param fifo - whether it is a FIFO queue (group and deduplication ids, else a `dedup_key` attribute)
 * @param message - the message
 */
export function sendMessageInput(
  queueUrl: string,
  fifo: boolean,
  message: SinkMessage,
): SendMessageCommandInput {
  const attributes: Record<string, MessageAttributeValue> = {
    signature_timestamp: { DataType: 'Number', StringValue: String(message.signatureTimestamp) },
  };
  for (const [name, value] of Object.entries(message.attributes)) {
    attributes[name] = { DataType: 'String', StringValue: value };
  }
  if (fifo) {
    return {
      QueueUrl: queueUrl,
      MessageBody: message.body,
      MessageAttributes: attributes,
      MessageGroupId: message.groupId,
      MessageDeduplicationId: message.deduplicationId,
    };
  }
  attributes.dedup_key = { DataType: 'String', StringValue: message.deduplicationId };
  return { QueueUrl: queueUrl, MessageBody: message.body, MessageAttributes: attributes };
}
