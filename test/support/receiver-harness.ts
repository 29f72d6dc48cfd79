import { randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import type { Environment } from '../../lambda/contract/environment.js';
import type { ApiGatewayEvent, ApiGatewayResponse } from '../../lambda/receiver/api-gateway.js';
import { loadConfig } from '../../lambda/receiver/config.js';
import { createHandler, type HandlerDependencies } from '../../lambda/receiver/handler.js';
import { lambdaContext } from './api-gateway-events.js';
import type { LocalSqs } from './local-sqs.js';

/** A receiver handler wired to a queue of its own on the embedded SQS server. */
export interface ReceiverUnderTest {
  readonly queueUrl: string;
  /** Invokes the handler with a fresh Lambda context (10 s remaining unless `context` says). */
  invoke(
    event: ApiGatewayEvent | Readonly<Record<string, unknown>>,
    context?: Context,
  ): Promise<ApiGatewayResponse>;
  /**
   * Bodies of every message on the queue. Call once, after the invocations: it counts the
   * messages and then receives exactly that many (they stay invisible for five minutes).
   */
  queuedBodies(): Promise<(string | undefined)[]>;
  /** Like {@link queuedBodies}, with every attribute of each message. */
  queuedMessages(): Promise<Message[]>;
}

/**
 * Creates a queue (standard unless `options.fifo`) with a unique name and a handler configured
 * from `env` plus that queue's `QUEUE_URL`, sending through the embedded server's client unless
 * `dependencies` says otherwise.
 *
 * @param sqs - the embedded SQS server
 * @param env - the handler's environment (key source, limits); `QUEUE_URL` is added
 * @param dependencies - clients and clock for `createHandler`
 * @param options - `fifo: true` for a FIFO queue
 */
export async function receiverOnNewQueue(
  sqs: LocalSqs,
  env: Environment,
  dependencies: HandlerDependencies = {},
  options: { readonly fifo?: boolean } = {},
): Promise<ReceiverUnderTest> {
  const queueUrl = await sqs.createQueue(`receiver-${randomUUID()}${options.fifo ? '.fifo' : ''}`);
  const handler = createHandler(loadConfig({ ...env, QUEUE_URL: queueUrl }), {
    sqsClient: sqs.client,
    ...dependencies,
  });
  const queuedMessages = async (): Promise<Message[]> => {
    const count = await sqs.messageCount(queueUrl);
    return count === 0 ? [] : sqs.receiveAll(queueUrl, { count });
  };
  return {
    queueUrl,
    invoke: (event, context = lambdaContext()) => handler(event, context),
    queuedBodies: async () => (await queuedMessages()).map((message) => message.Body),
    queuedMessages,
  };
}
