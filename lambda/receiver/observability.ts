import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DECISION_FIELDS, type DecisionOutcome } from '../contract/decision-metrics.js';
import { METRIC_NAMES } from '../contract/metric-names.js';
import { SOURCE_NOT_ALLOWED } from '../contract/source-allowlist.js';
import type { SkippedVersion } from './decision/key-set.js';
import type { KeyLoadError, ReceiveOutcome } from './decision/receive.js';
import { STATIC_KEY_STAGE } from './key-ring.js';

/** The receiver's logger and metrics. */
export interface Observability {
  readonly logger: Logger;
  /**
   * Events that are not one per call (key loads, queue and archive failures), stored while a call
   * runs and published before it returns (see {@link publishMetrics}). Calls are counted from
   * their decision lines instead (`lambda/contract/decision-metrics.ts`).
   */
  readonly metrics: Metrics;
  /** Whether `metrics` holds events not yet published. */
  stored: boolean;
  /** The `service` field of the decision lines: the service name the metrics carry. */
  readonly serviceName: string;
  /**
   * The logger's level (a Powertools `LogLevelThreshold`), read once: it is set at cold start,
   * and reading it costs an environment lookup per call.
   */
  readonly logLevel: number;
}

/**
 * Creates the Powertools logger (JSON, level from `POWERTOOLS_LOG_LEVEL`/`LOG_LEVEL`, or Lambda's
 * application log level when set) and metrics (EMF, default dimension `service`).
 *
 * @param names - service name and metrics namespace from configuration
 */
export function createObservability(names: {
  readonly serviceName: string;
  readonly metricsNamespace: string;
}): Observability {
  const logger = new Logger({ serviceName: names.serviceName });
  const metrics = new Metrics({
    serviceName: names.serviceName,
    namespace: names.metricsNamespace,
  });
  return { logger, metrics, stored: false, serviceName: names.serviceName, logLevel: logger.level };
}

/** What the handler knows about a call besides the decision, for its log line. */
export interface CallContext {
  /** API Gateway's (or the function URL's) id of the request. */
  readonly apiRequestId: string | undefined;
  /** Name of the endpoint the call came in on, when several are configured. */
  readonly endpoint?: string;
}

/**
 * Writes the decision line of a call: the line the per-call metrics are counted from (see
 * `lambda/contract/decision-metrics.ts`), and what an operator needs (outcome, status, reason,
 * request id, endpoint, event type, timestamp age, dedup key, and the key stage and signed form
 * when they are not the usual AWSCURRENT and as sent). Never the key, the payload or personal
 * data: only fields of the decision are logged, never the request.
 *
 * The line of a queued, ignored or rejected call is one compact JSON object with only these
 * fields and `service` (no timestamp or Lambda context: CloudWatch stamps every event, and the
 * log group names the function), written directly rather than through Powertools Logger: it is
 * most of what a call costs in CloudWatch Logs, and both its bytes and its CPU per call are kept
 * small (docs/performance.md). A 503 is logged through Powertools Logger with its error. Like any
 * line, it is written only when the log level lets its level through: Lambda's application log
 * level, which the logger follows, drops the lines below it before CloudWatch sees them.
 *
 * @param observability - logger and metrics
 * @param outcome - the decision
 * @param call - request id and endpoint
 */
export function recordOutcome(
  observability: Observability,
  outcome: ReceiveOutcome,
  call: CallContext,
): void {
  const { logLevel } = observability;
  switch (outcome.kind) {
    case 'queued':
      // No message ("Webhook queued") and no status (200): `outcome: queued` says both. Queued
      // calls are nearly every line, and CloudWatch Logs bills each byte; rejections keep both.
      if (logLevel <= LogLevelThreshold.INFO) {
        writeLine(observability, 'INFO', undefined, outcome, call);
      }
      return;
    case 'ignored':
      if (logLevel <= LogLevelThreshold.INFO) {
        writeLine(
          observability,
          'INFO',
          'Webhook ignored: event not in FORWARD_EVENTS',
          outcome,
          call,
        );
      }
      return;
    case 'rejected':
      if (logLevel <= LogLevelThreshold.WARN) {
        writeLine(observability, 'WARN', 'Webhook rejected', outcome, call);
      }
      return;
    case 'unavailable':
      // Key-load failures are counted where they happen (recordKeyLoadFailure), once per attempt.
      if (outcome.reason === 'queue_unavailable') {
        storeCount(observability, METRIC_NAMES.queueSendFailure);
      }
      observability.logger.error('Webhook not accepted: dependency unavailable, answered 503', {
        ...decisionFields(outcome, call),
        error: outcome.error,
      });
      return;
  }
}

/**
 * Publishes the events stored during the call, if any, as one EMF blob.
 *
 * @param observability - metrics
 */
export function publishMetrics(observability: Observability): void {
  if (!observability.stored) return;
  observability.stored = false;
  observability.metrics.publishStoredMetrics();
}

/** Stores a count of one, published before the call returns. */
function storeCount(observability: Observability, name: string): void {
  observability.metrics.addMetric(name, MetricUnit.Count, 1);
  observability.stored = true;
}

/** The fields of a decision's log line, in a fixed order; absent ones are left out. */
function decisionFields(outcome: ReceiveOutcome, call: CallContext): Record<string, unknown> {
  const { details } = outcome;
  const kind: DecisionOutcome = outcome.kind;
  return {
    [OUTCOME]: kind,
    ...(outcome.kind === 'queued' ? {} : { [STATUS]: outcome.status }),
    ...('reason' in outcome ? { [REASON]: outcome.reason } : {}),
    ...(call.apiRequestId === undefined ? {} : { api_request_id: call.apiRequestId }),
    ...endpointField(call.endpoint),
    ...(details.eventType === undefined ? {} : { event_type: details.eventType.slice(0, 100) }),
    ...(details.timestampAgeSeconds === undefined
      ? {}
      : { timestamp_age_seconds: details.timestampAgeSeconds }),
    ...(details.keyStage === undefined || USUAL_KEY_STAGES.has(details.keyStage)
      ? {}
      : { key_stage: details.keyStage }),
    ...(details.signedForm === undefined || details.signedForm === 'as_sent'
      ? {}
      : { signed_form: details.signedForm }),
    ...(details.keysRefreshed ? { keys_refreshed: true } : {}),
    ...(details.dedupKey === undefined ? {} : { dedup_key: details.dedupKey }),
  };
}

// The decision line's fields the metric filters read, named where the filters are defined.
const {
  outcome: OUTCOME,
  status: STATUS,
  reason: REASON,
  endpoint: ENDPOINT,
  service: SERVICE,
} = DECISION_FIELDS;

// The stage that verifies nearly every call (a local run's only key, the other): logged only when
// another one matched.
const USUAL_KEY_STAGES: ReadonlySet<string> = new Set(['AWSCURRENT', STATIC_KEY_STAGE]);

/**
 * Writes one decision line: `level`, `message` (when there is one) and `service` as Powertools
 * writes them, then the fields.
 */
function writeLine(
  { serviceName }: Observability,
  level: 'INFO' | 'WARN',
  message: string | undefined,
  outcome: ReceiveOutcome,
  call: CallContext,
): void {
  const fields = decisionFields(outcome, call);
  const service = { [SERVICE]: serviceName };
  const line = JSON.stringify(
    message === undefined
      ? { level, ...service, ...fields }
      : { level, message, ...service, ...fields },
  );
  // Warnings go to stderr, as Powertools writes them; Lambda sends both streams to CloudWatch.
  (level === 'INFO' ? process.stdout : process.stderr).write(`${line}\n`);
}

/**
 * Counts and logs a failed key load. With stale keys still in use, calls those keys verify keep
 * being queued, so this metric and log line are where a Secrets Manager outage shows first.
 *
 * @param observability - logger and metrics
 * @param error - what failed
 * @param usingStaleKeys - whether previously loaded keys stay in use
 * @param endpoint - the endpoint whose keys failed, when the receiver serves several
 */
export function recordKeyLoadFailure(
  observability: Observability,
  error: KeyLoadError,
  usingStaleKeys: boolean,
  endpoint?: string,
): void {
  storeCount(observability, METRIC_NAMES.keyLoadFailure);
  observability.logger.error(
    usingStaleKeys
      ? 'Reloading the signing keys failed; still using the keys loaded before'
      : 'Loading the signing keys failed; answering 503',
    { ...endpointField(endpoint), error, using_stale_keys: usingStaleKeys },
  );
}

/**
 * Counts and logs an archive record that was not taken within the write bound. The answer is
 * unchanged (the message is queued): the archive misses this call, and the alarm on this metric
 * says so. The error's name and message only are logged, never the record, which holds personal
 * data.
 *
 * @param observability - logger and metrics
 * @param error - what the write failed with
 * @param call - request id and endpoint
 */
export function recordArchiveWriteFailure(
  observability: Observability,
  error: unknown,
  call: CallContext,
): void {
  storeCount(observability, METRIC_NAMES.archiveWriteFailure);
  observability.logger.error('Archiving the call failed; the answer was sent unchanged', {
    ...(call.apiRequestId === undefined ? {} : { api_request_id: call.apiRequestId }),
    ...endpointField(call.endpoint),
    error_name: error instanceof Error ? error.name : typeof error,
    error_message: error instanceof Error ? error.message.slice(0, 200) : undefined,
  });
}

/**
 * Counts a successful key load, published with this call's metrics: beside `KeyLoadFailure` it
 * shows how often the receiver reads Secrets Manager (a cost) and that loads recover.
 *
 * @param observability - metrics
 */
export function recordKeyLoaded(observability: Observability): void {
  storeCount(observability, METRIC_NAMES.keyLoaded);
}

/**
 * Logs a pending or previous secret version left out of the key set (binary only, or a JSON
 * value the secret-format rule cannot read); the other versions keep serving.
 *
 * @param observability - logger
 * @param skipped - the stage and what is wrong with it (field names, never a value)
 * @param endpoint - the endpoint whose secret it is, when the receiver serves several
 */
export function recordSkippedKeyVersion(
  { logger }: Observability,
  skipped: SkippedVersion,
  endpoint?: string,
): void {
  logger.warn(`Secret version ${skipped.stage} skipped: it ${skipped.problem}`, {
    ...endpointField(endpoint),
    key_stage: skipped.stage,
  });
}

/** The `endpoint` log field, present only when the receiver serves named endpoints. */
function endpointField(endpoint: string | undefined): Record<string, string> {
  return endpoint === undefined ? {} : { [ENDPOINT]: endpoint };
}

/**
 * Logs a call to a path that names no configured endpoint (answered 404 without loading any
 * key). The path is logged, cut to 200 characters: it is what the sender called.
 *
 * @param observability - logger
 * @param path - the request path, if the event has one
 * @param apiRequestId - API Gateway's request id
 */
export function recordUnknownEndpoint(
  observability: Observability,
  path: string | undefined,
  apiRequestId: string | undefined,
): void {
  recordRefusal(observability, 'Webhook rejected: no endpoint at this path', {
    status: 404,
    reason: UNKNOWN_ENDPOINT,
    apiRequestId,
    ...(path === undefined ? {} : { path: path.slice(0, 200) }),
  });
}

/**
 * Logs (WARN, with the address) a call refused because its source address is outside
 * `ALLOWED_SOURCE_IPS`. Its line counts in `WebhookRejected`, by reason, and in
 * `SourceNotAllowed`, never in `SignatureRejected`, so a scan from elsewhere does not raise the
 * signature-rejection alarm.
 *
 * @param observability - logger
 * @param sourceIp - the front door's source address, if the event has one
 * @param apiRequestId - API Gateway's request id
 */
export function recordSourceNotAllowed(
  observability: Observability,
  sourceIp: string | undefined,
  apiRequestId: string | undefined,
): void {
  recordRefusal(observability, 'Webhook rejected: source address not in ALLOWED_SOURCE_IPS', {
    status: 403,
    reason: SOURCE_NOT_ALLOWED,
    apiRequestId,
    // Cut like the 404's path: an event built by hand may carry anything here.
    source_ip: (sourceIp ?? 'none').slice(0, 64),
  });
}

/**
 * Logs at WARN the decision line of a call the handler refused before any key was loaded, with
 * its status, reason, request id and `fields`; the line counts in `WebhookRejected`, and by reason.
 */
function recordRefusal(
  observability: Observability,
  message: string,
  {
    status,
    reason,
    apiRequestId,
    ...fields
  }: {
    status: number;
    reason: string;
    apiRequestId: string | undefined;
    [field: string]: unknown;
  },
): void {
  observability.logger.warn(message, {
    [OUTCOME]: REJECTED,
    [STATUS]: status,
    [REASON]: reason,
    ...fields,
    ...(apiRequestId === undefined ? {} : { api_request_id: apiRequestId }),
  });
}

/** The log and metric `reason` of a 404. */
const UNKNOWN_ENDPOINT = 'unknown_endpoint';

/** The `outcome` of a refused call's line. */
const REJECTED: DecisionOutcome = 'rejected';

/**
 * Logs an invocation that is not a proxy event (a console test event, another service's event):
 * a wiring mistake, so logged at error level, with the event's top-level keys only (values may
 * carry anything).
 *
 * @param observability - logger
 * @param eventKeys - the event's top-level keys
 */
export function recordUnsupportedEvent(
  observability: Observability,
  eventKeys: readonly string[],
): void {
  observability.logger.error(
    'unsupported_event: not an API Gateway or function URL proxy event, answered 400',
    {
      [OUTCOME]: REJECTED,
      [STATUS]: 400,
      [REASON]: 'unsupported_event',
      event_keys: eventKeys,
    },
  );
}
