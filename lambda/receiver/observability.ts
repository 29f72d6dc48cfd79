import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ENDPOINT_DIMENSION, METRIC_NAMES } from '../contract/metric-names.js';
import { SOURCE_NOT_ALLOWED } from '../contract/source-allowlist.js';
import type { SkippedVersion } from './decision/key-set.js';
import type { KeyLoadError, ReceiveOutcome } from './decision/receive.js';
import { STATIC_KEY_STAGE } from './key-ring.js';

/**
 * How long counts of accepted calls (queued or ignored) wait to be published, at most: they are
 * summed per execution environment and published with the first call after this much time, or
 * with any call that publishes metrics of its own (a rejection, a failure).
 */
export const ACCEPTED_COUNTS_INTERVAL_MS = 60_000;

/** The receiver's logger and metrics. */
export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /**
   * Publishes one rejection at once under its own `reason` dimension: a single-metric instance
   * of `metrics`, made once and reused for every rejection. Making one per rejection (a Metrics
   * with its own Console and environment reads) took 80–200 µs a call, against 7–30 µs reused.
   */
  readonly rejectionByReason: Metrics;
  /** What is waiting to be published (see {@link publishMetrics}). */
  readonly pending: PendingMetrics;
  /**
   * The logger's level (a Powertools `LogLevelThreshold`), read once: it is set at cold start,
   * and reading it costs an environment lookup per call.
   */
  readonly logLevel: number;
}

/** Metrics not yet published (see {@link publishMetrics}). */
export interface PendingMetrics {
  /** Calls counted since the last publication (all of them, then the accepted ones). */
  received: number;
  forwarded: number;
  ignored: number;
  /** Whether metrics of a rejection or failure are stored, to be published at once. */
  stored: boolean;
  /** Epoch milliseconds of the last publication; -Infinity before the first. */
  publishedAt: number;
  /**
   * Counts per named endpoint (a receiver serving several), published beside the totals with an
   * `endpoint` dimension: what the dashboard's per-endpoint widgets and the silence alarms read.
   * At most one entry per configured endpoint: calls naming no endpoint are never counted here.
   */
  readonly endpoints: Map<string, EndpointCounts>;
}

/** The outcomes of one endpoint's calls since its last publication. */
export interface EndpointCounts {
  /** Queued or ignored: calls whose signature verified. */
  verified: number;
  rejected: number;
  /** Epoch milliseconds of this endpoint's last publication; -Infinity before the first. */
  publishedAt: number;
}

/**
 * Creates the Powertools logger (JSON, level from `POWERTOOLS_LOG_LEVEL`/`LOG_LEVEL`) and metrics
 * (EMF, default dimension `service`).
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
  return {
    logger,
    metrics,
    // Publishing clears the dimensions it added (`reason`) and keeps the defaults (`service`).
    rejectionByReason: metrics.singleMetric(),
    pending: {
      received: 0,
      forwarded: 0,
      ignored: 0,
      stored: false,
      publishedAt: Number.NEGATIVE_INFINITY,
      endpoints: new Map(),
    },
    logLevel: logger.level,
  };
}

/** What the handler knows about a call besides the decision, for its log line. */
export interface CallContext {
  /** API Gateway's (or the function URL's) id of the request. */
  readonly apiRequestId: string | undefined;
  /** Name of the endpoint the call came in on, when several are configured. */
  readonly endpoint?: string;
}

/**
 * Logs one line per call and counts it. The line carries what an operator needs (outcome,
 * status, reason, request id, endpoint, event type, timestamp age, dedup key, and the key stage
 * and signed form when they are not the usual AWSCURRENT and as sent) and never the key, the
 * payload or personal data: only fields of the decision are logged, never the request.
 *
 * The line of a queued, ignored or rejected call is one compact JSON object with only these
 * fields (no timestamp, service or Lambda context: CloudWatch stamps every event, and the log
 * group names the function), written directly: it is most of what a call costs in CloudWatch
 * Logs, and going through Powertools Logger cost more CPU than verifying a 1 KB body. A 503 is
 * logged through Powertools Logger with its error.
 *
 * Accepted calls are only counted here (see {@link publishMetrics}); a rejection or failure
 * stores its metrics, and the handler publishes them before returning.
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
  const { rejectionByReason, pending, logLevel } = observability;
  if (call.endpoint !== undefined && outcome.kind !== 'unavailable') {
    countForEndpoint(pending, call.endpoint, outcome.kind);
  }
  switch (outcome.kind) {
    case 'queued':
      pending.received += 1;
      pending.forwarded += 1;
      // No message ("Webhook queued") and no status (200): `outcome: queued` says both. Queued
      // calls are nearly every line, and CloudWatch Logs bills each byte; rejections keep both.
      if (logLevel <= LogLevelThreshold.INFO) writeLine('INFO', undefined, outcome, call);
      return;
    case 'ignored':
      pending.received += 1;
      pending.ignored += 1;
      if (logLevel <= LogLevelThreshold.INFO) {
        writeLine('INFO', 'Webhook ignored: event not in FORWARD_EVENTS', outcome, call);
      }
      return;
    case 'rejected':
      pending.received += 1;
      storeCount(observability, METRIC_NAMES.rejected);
      if (outcome.status === 401) storeCount(observability, METRIC_NAMES.signatureRejected);
      // Emitted at once with its own dimension so the per-reason breakdown does not split the
      // plain WebhookRejected count that alarms watch.
      rejectionByReason
        .addDimension('reason', outcome.reason)
        .addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
      if (logLevel <= LogLevelThreshold.WARN) writeLine('WARN', 'Webhook rejected', outcome, call);
      return;
    case 'unavailable':
      pending.received += 1;
      pending.stored = true;
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
 * Publishes the stored metrics, with the counts of accepted calls added, when there are metrics
 * of a rejection or failure to publish, or when the counts have waited ACCEPTED_COUNTS_INTERVAL_MS.
 * An EMF blob per accepted call would cost more CloudWatch Logs than its log line; the price is
 * that counts of the last minute before an idle environment is shut down are never published
 * (the log lines still hold every call).
 *
 * @param observability - logger and metrics
 * @param nowMs - the clock, epoch milliseconds
 */
export function publishMetrics({ metrics, pending }: Observability, nowMs: number): void {
  const due = (publishedAt: number) => nowMs - publishedAt >= ACCEPTED_COUNTS_INTERVAL_MS;
  // An endpoint's first call after a quiet minute is published at once, like the receiver's: a
  // count held back and then lost with its environment would raise that endpoint's silence alarm.
  const endpointDue = [...pending.endpoints.values()].some(
    (counts) => due(counts.publishedAt) && counts.verified + counts.rejected > 0,
  );
  if (!pending.stored && !endpointDue && !due(pending.publishedAt)) return;
  const counts = [
    [METRIC_NAMES.received, pending.received],
    [METRIC_NAMES.forwarded, pending.forwarded],
    [METRIC_NAMES.ignored, pending.ignored],
    [METRIC_NAMES.verified, pending.forwarded + pending.ignored],
  ] as const;
  for (const [name, count] of counts) {
    if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
  }
  const anything = pending.stored || pending.received > 0;
  Object.assign(pending, { received: 0, forwarded: 0, ignored: 0, stored: false });
  pending.publishedAt = nowMs;
  if (anything) metrics.publishStoredMetrics();
  publishEndpointCounts(metrics, pending.endpoints, nowMs);
}

/** Adds one call's outcome to its endpoint's counts. */
function countForEndpoint(
  pending: PendingMetrics,
  endpoint: string,
  kind: 'queued' | 'ignored' | 'rejected',
): void {
  let counts = pending.endpoints.get(endpoint);
  if (counts === undefined) {
    counts = { verified: 0, rejected: 0, publishedAt: Number.NEGATIVE_INFINITY };
    pending.endpoints.set(endpoint, counts);
  }
  if (kind === 'rejected') counts.rejected += 1;
  else counts.verified += 1;
}

/**
 * One EMF blob per endpoint with calls: its verified and rejected counts under the dimensions
 * `service` and `endpoint` (two custom metrics per endpoint: each costs a monthly fee). The
 * totals under `service` alone are published as before, so the alarms on them are unchanged.
 */
function publishEndpointCounts(
  metrics: Metrics,
  endpoints: Map<string, EndpointCounts>,
  nowMs: number,
): void {
  for (const [endpoint, counts] of endpoints) {
    const values = [
      [METRIC_NAMES.verified, counts.verified],
      [METRIC_NAMES.rejected, counts.rejected],
    ] as const;
    if (values.every(([, count]) => count === 0)) continue;
    metrics.addDimension(ENDPOINT_DIMENSION, endpoint);
    for (const [name, count] of values) {
      if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
    }
    metrics.publishStoredMetrics();
    Object.assign(counts, { verified: 0, rejected: 0, publishedAt: nowMs });
  }
}

/** Stores a count of one for the next publication, which then happens at once. */
function storeCount(observability: Observability, name: string): void {
  observability.metrics.addMetric(name, MetricUnit.Count, 1);
  observability.pending.stored = true;
}

/** The fields of a decision's log line, in a fixed order; absent ones are left out. */
function decisionFields(outcome: ReceiveOutcome, call: CallContext): Record<string, unknown> {
  const { details } = outcome;
  return {
    outcome: outcome.kind,
    ...(outcome.kind === 'queued' ? {} : { status: outcome.status }),
    ...('reason' in outcome ? { reason: outcome.reason } : {}),
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

// The stage that verifies nearly every call (a local run's only key, the other): logged only when
// another one matched.
const USUAL_KEY_STAGES: ReadonlySet<string> = new Set(['AWSCURRENT', STATIC_KEY_STAGE]);

/**
 * Writes one decision line: `level` and `message` (when there is one) as Powertools writes them,
 * then the fields.
 */
function writeLine(
  level: 'INFO' | 'WARN',
  message: string | undefined,
  outcome: ReceiveOutcome,
  call: CallContext,
): void {
  const fields = decisionFields(outcome, call);
  const line = JSON.stringify(
    message === undefined ? { level, ...fields } : { level, message, ...fields },
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
function endpointField(endpoint: string | undefined): { endpoint?: string } {
  return endpoint === undefined ? {} : { endpoint };
}

/**
 * Logs and counts a call to a path that names no configured endpoint (answered 404 without
 * loading any key). The path is logged, cut to 200 characters: it is what the sender called.
 *
 * @param observability - logger and metrics
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
 * Logs (WARN, with the address) and counts a call refused because its source address is outside
 * `ALLOWED_SOURCE_IPS`: in `WebhookRejected`, by reason, and in `SourceNotAllowed`, never in
 * `SignatureRejected`, so a scan from elsewhere does not raise the signature-rejection alarm.
 *
 * @param observability - logger and metrics
 * @param sourceIp - the front door's source address, if the event has one
 * @param apiRequestId - API Gateway's request id
 */
export function recordSourceNotAllowed(
  observability: Observability,
  sourceIp: string | undefined,
  apiRequestId: string | undefined,
): void {
  storeCount(observability, METRIC_NAMES.sourceNotAllowed);
  recordRefusal(observability, 'Webhook rejected: source address not in ALLOWED_SOURCE_IPS', {
    status: 403,
    reason: SOURCE_NOT_ALLOWED,
    apiRequestId,
    // Cut like the 404's path: an event built by hand may carry anything here.
    source_ip: (sourceIp ?? 'none').slice(0, 64),
  });
}

/**
 * Counts a call the handler refused before any key was loaded (in `WebhookRejected`, and per
 * reason) and logs it at WARN with its status, reason, request id and `fields`.
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
  observability.pending.received += 1;
  storeCount(observability, METRIC_NAMES.rejected);
  observability.rejectionByReason
    .addDimension('reason', reason)
    .addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
  observability.logger.warn(message, {
    outcome: 'rejected',
    status,
    reason,
    ...fields,
    ...(apiRequestId === undefined ? {} : { api_request_id: apiRequestId }),
  });
}

/** The log and metric `reason` of a 404. */
const UNKNOWN_ENDPOINT = 'unknown_endpoint';

/**
 * Logs and counts an invocation that is not a proxy event (a console test event, another
 * service's event): a wiring mistake, so logged at error level, with the event's top-level keys
 * only (values may carry anything).
 *
 * @param observability - logger and metrics
 * @param eventKeys - the event's top-level keys
 */
export function recordUnsupportedEvent(
  observability: Observability,
  eventKeys: readonly string[],
): void {
  observability.pending.received += 1;
  storeCount(observability, METRIC_NAMES.rejected);
  observability.logger.error(
    'unsupported_event: not an API Gateway or function URL proxy event, answered 400',
    {
      outcome: 'rejected',
      status: 400,
      reason: 'unsupported_event',
      event_keys: eventKeys,
    },
  );
}
