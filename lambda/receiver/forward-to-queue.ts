import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SendMessageCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { withAbortAfter } from './abort-after.js';
import { SinkSendError } from './decision/receive.js';
import type { SinkMessage } from './decision/sink-message.js';

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
 * A message sink that sends each message to SQS with one SendMessage. A queue URL ending in
 * `.fifo` gets `MessageGroupId` and `MessageDeduplicationId` (a sender's retry within SQS's
 * 5-minute window is stored once); a standard queue gets the same hash as a `dedup_key` attribute
 * for consumer-side idempotency. Every String attribute of the message is sent, so with named
 * endpoints each message carries `endpoint`, and both ids start with the endpoint name (built in
 * the core, `buildMessage`).
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
  return {
    async send(message: SinkMessage, deadlineAt?: number): Promise<void> {
      const ownDeadline = now() + deadlineMs;
      const giveUpAt = deadlineAt === undefined ? ownDeadline : Math.min(ownDeadline, deadlineAt);
      try {
        await withAbortAfter(Math.max(1, giveUpAt - now()), (abortSignal) =>
          client.send(new SendMessageCommand(sendMessageInput(queueUrl, fifo, message)), {
            abortSignal,
          }),
        );
      } catch (error) {
        throw new SinkSendError(`SendMessage to ${queueUrl} failed`, { cause: error });
      }
    },
  };
}

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
