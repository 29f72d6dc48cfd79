import { FirehoseClient } from '@aws-sdk/client-firehose';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import {
  type ApiGatewayEvent,
  type ApiGatewayResponse,
  apiRequestId,
  isProxyEvent,
  requestFromEvent,
  responseFromOutcome,
  sourceIpOf,
  sourceNotAllowedResponse,
} from './api-gateway.js';
import { archiveRecord, RejectedArchiveQuota } from './archive-record.js';
import { firehoseArchive } from './archive-writer.js';
import type { ReceiverConfig } from './config.js';
import type { AcceptedKeys } from './decision/key-set.js';
import {
  type KeyRefresh,
  type KeySource,
  type MessageSink,
  type ReceivePorts,
  receive,
  rejected,
  type SinkMessage,
} from './decision/receive.js';
import { endpointRouter, notFoundResponse, requestPath } from './endpoints.js';
import { type QueueSink, queueSink } from './forward-to-queue.js';
import type { DeadlineKeySource } from './key-ring.js';
import {
  createObservability,
  type Observability,
  publishMetrics,
  recordArchiveWriteFailure,
  recordOutcome,
  recordSourceNotAllowed,
  recordUnknownEndpoint,
  recordUnsupportedEvent,
} from './observability.js';

/** The receiver's Lambda handler type. */
export type ReceiverHandler = (
  /** A proxy event; anything else Lambda may be invoked with is answered 400. */
  event: ApiGatewayEvent | Readonly<Record<string, unknown>>,
  context: Context,
) => Promise<ApiGatewayResponse>;

/** Collaborators {@link createHandler} builds from configuration unless given (tests, local run). */
export interface HandlerDependencies {
  readonly sqsClient?: SQSClient;
  readonly secretsManagerClient?: SecretsManagerClient;
  readonly observability?: Observability;
  /**
   * Where archive records go when `ARCHIVE_STREAM` is set.
   * @default - a Firehose client with {@link ARCHIVE_CLIENT_SETTINGS}
   */
  readonly firehoseClient?: FirehoseClient;
  /**
   * Clock in milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
}

/**
 * SDK settings of the receiver's SQS and Secrets Manager clients (exported so tests build clients
 * that behave like the deployed ones). Per attempt: 1 s to connect, 2 s for the answer (SQS;
 * Secrets Manager calls get the time left in the invocation instead, see
 * `secretsManagerKeyLoader`); at most 3 attempts (SDK standard retry with backoff).
 */
export const CLIENT_SETTINGS = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1000, requestTimeout: 2000, throwOnRequestTimeout: true },
} as const;

/**
 * SDK settings of the archive's Firehose client: the whole write, retry included, is bounded by
 * `ARCHIVE_LIMITS.writeBoundMs` through its abort signal; the short connection timeout
 * leaves room for the one retry.
 */
export const ARCHIVE_CLIENT_SETTINGS = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 200, requestTimeout: 400, throwOnRequestTimeout: true },
} as const;

/**
 * Builds the receiver handler: API Gateway event -> source address check (403 outside
 * `ALLOWED_SOURCE_IPS`) -> request -> endpoint and its keys
 * (`endpoints.ts`; 404 for a path naming no endpoint) -> `receive` -> response, with one decision
 * line per call, which the per-call metrics count; key loads and failures are published before
 * returning (see `publishMetrics`). With `ARCHIVE_STREAM`, every answered call
 * is then archived (rejected ones bounded, see `archive-record.ts`), waiting at most
 * `ARCHIVE_LIMITS.writeBoundMs`; a failed write is counted, never answered.
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
  let secretsManagerClient = dependencies.secretsManagerClient;
  const router = endpointRouter(config, {
    secretsManagerClient: () => {
      secretsManagerClient ??= new SecretsManagerClient(CLIENT_SETTINGS);
      return secretsManagerClient;
    },
    observability,
    now,
  });
  const sink = queueSink(
    dependencies.sqsClient ?? new SQSClient(CLIENT_SETTINGS),
    config.queueUrl,
    { now },
  );
  const archive =
    config.archiveStream === undefined
      ? undefined
      : firehoseArchive(
          dependencies.firehoseClient ?? new FirehoseClient(ARCHIVE_CLIENT_SETTINGS),
          config.archiveStream,
          now,
        );
  const { allowedSources } = config;
  const rejectedQuota = new RejectedArchiveQuota();

  return async (event, context) => {
    observability.logger.addContext(context);
    try {
      // First of all: a caller outside the allowlist gets nothing read, decoded or loaded for it.
      if (allowedSources !== undefined && isProxyEvent(event)) {
        const sourceIp = sourceIpOf(event);
        if (sourceIp === undefined || !allowedSources.allows(sourceIp)) {
          recordSourceNotAllowed(observability, sourceIp, apiRequestId(event));
          return sourceNotAllowedResponse();
        }
      }
      const parsed = requestFromEvent(event);
      if (!parsed.ok) {
        recordUnsupportedEvent(observability, parsed.eventKeys);
        return responseFromOutcome(rejected(parsed.reason));
      }
      const proxy = event as ApiGatewayEvent;
      // Every dependency call of this invocation gives up in time to answer 503 before the
      // function times out.
      const receivedAtMs = now();
      const deadlineAt = receivedAtMs + context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS;
      const route = await router.route(proxy, parsed.request, deadlineAt);
      if (route === undefined) {
        recordUnknownEndpoint(observability, requestPath(proxy), apiRequestId(proxy));
        return notFoundResponse();
      }
      const ports = new InvocationPorts(route.keys, sink, now, deadlineAt);
      const outcome = await receive(route.request, config, ports);
      const { endpoint } = route.request;
      const call = {
        apiRequestId: apiRequestId(proxy),
        ...(endpoint === undefined ? {} : { endpoint }),
      };
      recordOutcome(observability, outcome, call);
      // After the queue took the message: the archive can delay the answer by its bound at most,
      // and never change it.
      if (archive !== undefined && (outcome.kind !== 'rejected' || rejectedQuota.take(now()))) {
        const record = archiveRecord(route.request, outcome, {
          receivedAtMs,
          apiRequestId: call.apiRequestId,
          sourceIp: sourceIpOf(proxy),
          message: ports.sent,
        });
        const failure = record === undefined ? undefined : await archive.write(record, deadlineAt);
        if (failure !== undefined) recordArchiveWriteFailure(observability, failure, call);
      }
      return responseFromOutcome(outcome);
    } finally {
      publishMetrics(observability);
    }
  };
}

/**
 * The ports of one invocation: every key load and send gives up at `deadlineAt`. A class rather
 * than an object of arrow functions, so a call allocates one object, not five.
 */
class InvocationPorts implements ReceivePorts, KeySource, MessageSink {
  readonly keys = this;
  readonly sink = this;
  /** The message the queue took, for the archive record. */
  sent: SinkMessage | undefined;

  constructor(
    private readonly keyRing: DeadlineKeySource,
    private readonly queue: QueueSink,
    private readonly clockMs: () => number,
    private readonly deadlineAt: number,
  ) {}

  current(): Promise<AcceptedKeys> {
    return this.keyRing.current(this.deadlineAt);
  }

  refreshAfterMismatch(): Promise<KeyRefresh> {
    return this.keyRing.refreshAfterMismatch(this.deadlineAt);
  }

  async send(message: SinkMessage): Promise<void> {
    await this.queue.send(message, this.deadlineAt);
    this.sent = message;
  }

  now(): number {
    return Math.floor(this.clockMs() / 1000);
  }
}

/**
 * Time kept back from the invocation's remaining time: the dependencies' deadlines end this much
 * before the function would time out, leaving room to log, publish metrics and answer 503.
 */
export const RESPONSE_MARGIN_MS = 1000;
