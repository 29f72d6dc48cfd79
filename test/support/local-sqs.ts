import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { closeEmbeddedServer, useForBlock } from './embedded-server.js';

/** Credentials and region for the SDK; the embedded server does not check them. */
export const LOCAL_AWS_SETTINGS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** An SQS-compatible server (`local-aws-sqs`) running inside the test process. */
export interface LocalSqs {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_SQS` or a client's `endpoint`. */
  readonly endpoint: string;
  /** A client pointed at the server. */
  readonly client: SQSClient;
  /**
   * Creates a queue; a name ending in `.fifo` makes a FIFO queue (content-based dedup off, so
   * the sender's `MessageDeduplicationId` decides).
   * @returns the queue URL
   */
  createQueue(name: string): Promise<string>;
  /**
   * Receives (without deleting) every message currently visible, with all attributes. With
   * `count`, stops once that many are in hand instead of polling until the queue answers empty
   * (each receive takes about 50 ms on the embedded server).
   */
  receiveAll(queueUrl: string, options?: { readonly count?: number }): Promise<Message[]>;
  /**
   * How many messages the queue holds: `ApproximateNumberOfMessages` plus
   * `ApproximateNumberOfMessagesDelayed`. Exact on the embedded server, where the first also
   * counts received (invisible) messages and a message just sent counts as delayed until a 0 ms
   * timer has run.
   */
  messageCount(queueUrl: string): Promise<number>;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts `local-aws-sqs` on a free loopback port; it speaks the JSON protocol of the current
 * SDK, so handlers are tested over the real wire protocol.
 */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server: Server = await createSqsServer({
    port: 0,
    hostname: '127.0.0.1',
    // Tests create queues with unique names; no 60 s wait after a delete is needed.
    emulateQueueCreationLifecycle: false,
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new SQSClient({ ...LOCAL_AWS_SETTINGS, endpoint });
  return {
    endpoint,
    client,
    async createQueue(name) {
      const attributes = name.endsWith('.fifo') ? { FifoQueue: 'true' } : undefined;
      const created = await client.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
      );
      if (created.QueueUrl === undefined) throw new Error(`CreateQueue ${name} returned no URL`);
      return created.QueueUrl;
    },
    async receiveAll(queueUrl, options = {}) {
      const messages: Message[] = [];
      while (options.count === undefined || messages.length < options.count) {
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 0,
            // Long enough that a message received once is not received again in the same test.
            VisibilityTimeout: 300,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            // local-aws-sqs only returns system attributes for the older parameter name.
            AttributeNames: ['All'],
          }),
        );
        if (!received.Messages?.length) return messages;
        messages.push(...received.Messages);
      }
      return messages;
    },
    async messageCount(queueUrl) {
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
        }),
      );
      return (
        Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0)
      );
    },
    close: () => closeEmbeddedServer(server, client),
  };
}

/**
 * One embedded SQS server for the enclosing `describe` block, started before its first test and
 * stopped after its last.
 *
 * @returns the running server (call it inside tests and hooks)
 */
export function useLocalSqs(): () => LocalSqs {
  return useForBlock(startLocalSqs, 'useLocalSqs');
}
