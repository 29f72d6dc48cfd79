import { createServer, type RequestListener } from 'node:http';
import { createRequestHandler } from 'local-aws-sqs';
import { QUEUE_SETTINGS } from '../lib/queue-settings.js';
import { closeServer, LOOPBACK, listen } from './net.js';

/** Name of the queue the receiver forwards verified events to (same name as in the deployed stack). */
export const QUEUE_NAME = 'webhook-events';

/** Name of the dead-letter queue that takes messages a consumer failed to process. */
export const DLQ_NAME = 'webhook-events-dlq';

/** Port of the embedded queue server when `LOCAL_SQS_PORT` is not set. */
export const DEFAULT_LOCAL_SQS_PORT = 9324;

/** Receives after which a message moves to the dead-letter queue: the deployed queue's value. */
export const MAX_RECEIVE_COUNT = QUEUE_SETTINGS.maxReceiveCount;

/** SQS's largest message, as the deployed queues use. */
const MAX_MESSAGE_SIZE = QUEUE_SETTINGS.maxMessageSizeBytes;

/** Cosmetic account id that appears in local queue URLs and ARNs. */
const LOCAL_ACCOUNT_ID = '123456789012';

/** Cosmetic region that appears in local queue ARNs. */
const LOCAL_REGION = 'us-east-1';

/** Options of {@link startLocalQueues}. */
export interface LocalQueuesOptions {
  /** TCP port to listen on; 0 picks a free one (the bound port is in the result). */
  readonly port: number;
  /** Local inspector hook: wraps the queue server's request listener to watch its traffic. */
  readonly tap?: (listener: RequestListener) => RequestListener;
}

/** A running embedded SQS-compatible server with the receiver's two queues. */
export interface LocalQueues {
  /** Base URL for `AWS_ENDPOINT_URL_SQS` / the SDK's `endpoint`, e.g. `http://127.0.0.1:9324`. */
  readonly endpoint: string;
  /** URL of `webhook-events`. */
  readonly queueUrl: string;
  /** URL of `webhook-events-dlq`. */
  readonly dlqUrl: string;
  /** The port actually bound. */
  readonly port: number;
  /**
   * Stops listening and drops open connections. Queue contents live in this object, not in the
   * listener: {@link LocalQueues.listen} on the same object serves the same messages again.
   */
  close(): Promise<void>;
  /** Listens again on the same port after {@link LocalQueues.close}, keeping every queued message. */
  listen(): Promise<void>;
}

/**
 * The URL a queue of the embedded server has on a given port; used by tools that default to the
 * local queue without starting it.
 */
export function localQueueUrl(port: number = DEFAULT_LOCAL_SQS_PORT, name = QUEUE_NAME): string {
  return `http://${LOOPBACK}:${port}/${LOCAL_ACCOUNT_ID}/${name}`;
}

/**
 * Starts `local-aws-sqs` on loopback with `webhook-events` (redriving to `webhook-events-dlq` after
 * {@link MAX_RECEIVE_COUNT} receives) and the dead-letter queue. Rejects (instead of crashing the
 * process) when the port is taken.
 */
export async function startLocalQueues(options: LocalQueuesOptions): Promise<LocalQueues> {
  const { service, requestHandler } = createRequestHandler({
    port: options.port,
    hostname: LOOPBACK,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    queues: [
      { QueueName: DLQ_NAME, Attributes: { MaximumMessageSize: MAX_MESSAGE_SIZE } },
      {
        QueueName: QUEUE_NAME,
        Attributes: {
          MaximumMessageSize: MAX_MESSAGE_SIZE,
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${DLQ_NAME}`,
            maxReceiveCount: MAX_RECEIVE_COUNT,
          }),
        },
      },
    ],
  });
  // Loopback only: the embedded queue has no authentication, so it must never face a network.
  const server = createServer(options.tap?.(requestHandler) ?? requestHandler);
  let port = await listen(server, options.port, LOOPBACK);
  // Queue URLs are computed from the service's port; with port 0 it only becomes known now.
  service.PORT = port;
  return {
    endpoint: `http://${LOOPBACK}:${port}`,
    queueUrl: localQueueUrl(port, QUEUE_NAME),
    dlqUrl: localQueueUrl(port, DLQ_NAME),
    port,
    close: () => closeServer(server),
    listen: async () => {
      port = await listen(server, port, LOOPBACK);
    },
  };
}
