import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { type KeySource, receive, rejected } from '../core/receive.js';
import {
  type ApiGatewayEvent,
  type ApiGatewayResponse,
  apiRequestId,
  requestFromEvent,
  responseFromOutcome,
} from './api-gateway.js';
import type { ReceiverConfig } from './config.js';
import { queueSink } from './forward-to-queue.js';
import { CachedKeyRing, secretsManagerKeyLoader, staticKeySource } from './key-ring.js';
import {
  createObservability,
  type Observability,
  recordKeyLoadFailure,
  recordOutcome,
} from './observability.js';

/** The receiver's Lambda handler type. */
export type ReceiverHandler = (
  event: ApiGatewayEvent,
  context: Context,
) => Promise<ApiGatewayResponse>;

/** Collaborators {@link createHandler} builds from configuration unless given (tests, local run). */
export interface HandlerDependencies {
  readonly sqsClient?: SQSClient;
  readonly secretsManagerClient?: SecretsManagerClient;
  readonly observability?: Observability;
  /**
   * Clock in milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
}

// Per attempt: 1 s to connect, 2 s for the answer; at most 3 attempts (SDK standard retry with
// backoff). With the 5 s deadline per operation in the sink and key loader, a call that needs a
// key load and a send ends within about 10 s, well inside API Gateway's 29 s limit.
const CLIENT_SETTINGS = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
} as const;

/**
 * Builds the receiver handler: API Gateway event -> request -> `receive` -> response, with one
 * log line and the metrics of each call published before returning.
 *
 * @param config - validated configuration (see `loadConfig`)
 * @param dependencies - clients, observability and clock to use instead of the defaults
 */
export function createHandler(
  config: ReceiverConfig,
  dependencies: HandlerDependencies = {},
): ReceiverHandler {
  const now = dependencies.now ?? Date.now;
  const observability = dependencies.observability ?? createObservability(config);
  const sqsClient = dependencies.sqsClient ?? new SQSClient(CLIENT_SETTINGS);
  const ports = {
    keys: keySourceFor(config, dependencies, observability, now),
    sink: queueSink(sqsClient, config.queueUrl),
    now: () => Math.floor(now() / 1000),
  };

  return async (event, context) => {
    observability.logger.addContext(context);
    try {
      const parsed = requestFromEvent(event);
      const outcome = parsed.ok
        ? await receive(parsed.request, config, ports)
        : rejected(parsed.reason);
      recordOutcome(observability, outcome, apiRequestId(event));
      return responseFromOutcome(outcome);
    } finally {
      observability.metrics.publishStoredMetrics();
    }
  };
}

function keySourceFor(
  config: ReceiverConfig,
  dependencies: HandlerDependencies,
  observability: Observability,
  now: () => number,
): KeySource {
  if (config.keySource.kind === 'static') return staticKeySource(config.keySource.key);
  const client = dependencies.secretsManagerClient ?? new SecretsManagerClient(CLIENT_SETTINGS);
  const load = secretsManagerKeyLoader(client, config.keySource.secretId, {
    previousKeyGraceSeconds: config.previousKeyGraceSeconds,
    now,
  });
  return new CachedKeyRing(load, {
    cacheSeconds: config.secretCacheSeconds,
    now,
    onLoadFailure: (error, usingStaleKeys) =>
      recordKeyLoadFailure(observability, error, usingStaleKeys),
  });
}
