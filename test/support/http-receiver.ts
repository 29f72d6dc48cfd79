import type { Environment } from '../../lambda/contract/environment.js';
import { loadConfig } from '../../lambda/receiver/config.js';
import { createHandler, type HandlerDependencies } from '../../lambda/receiver/handler.js';
import { type DrainedQueue, drainQueue } from '../../loadtest/drain-queue.js';
import { isRunBody } from '../../loadtest/request-mix.js';
import { startWebhookServer } from '../../local/webhook-server.js';
import type { LocalSqs } from './local-sqs.js';

/** The production handler behind the local run's HTTP adapter, on a queue of its own. */
export interface HttpReceiver {
  /** `http://127.0.0.1:<port>/webhook`. */
  readonly url: string;
  readonly queueUrl: string;
  /** Receives and deletes every message of the load run `runId` (see `runBookingBody`). */
  drain(runId: string): Promise<DrainedQueue>;
  close(): Promise<void>;
}

/** Options of {@link startHttpReceiver}. */
export interface HttpReceiverOptions {
  readonly sqs: LocalSqs;
  /** A new queue's name; ending in `.fifo` makes a FIFO queue. */
  readonly queueName: string;
  /** Receiver settings but `QUEUE_URL`; `WEBHOOK_SECRET` or `SECRET_ID` is required. */
  readonly env: Environment;
  /** Clients and clock; the SQS client defaults to the local server's. */
  readonly dependencies?: HandlerDependencies;
}

/**
 * Starts `createHandler` with the given settings and collaborators (a mocked Secrets Manager, an
 * injected clock) behind `startWebhookServer`, the adapter `npm start` uses: load runs, faults
 * and rotations are then exercised over real HTTP and the real SQS wire protocol while the test
 * controls what `npm start` cannot (its clock, its Secrets Manager, a FIFO queue).
 *
 * @param options - queue, settings and collaborators
 */
export async function startHttpReceiver(options: HttpReceiverOptions): Promise<HttpReceiver> {
  const queueUrl = await options.sqs.createQueue(options.queueName);
  const config = loadConfig({ ...options.env, QUEUE_URL: queueUrl });
  const handler = createHandler(config, {
    sqsClient: options.sqs.client,
    ...options.dependencies,
  });
  const server = await startWebhookServer({
    port: 0,
    host: '127.0.0.1',
    handler,
    maxBodyBytes: config.maxBodyBytes,
    onHandlerError: (error) => {
      throw error;
    },
  });
  return {
    url: server.url,
    queueUrl,
    drain: (runId) =>
      drainQueue({
        client: options.sqs.client,
        queueUrl,
        isOurs: (body) => isRunBody(body, runId),
      }),
    close: () => server.close(),
  };
}
