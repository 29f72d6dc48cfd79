import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { KeyLoadError } from '../core/errors.js';
import type { SkippedVersion } from '../core/key-set.js';
import type { ReceiveOutcome } from '../core/receive.js';
import { METRIC_NAMES } from './metric-names.js';

/** The receiver's logger and metrics. */
export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
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
  return {
    logger: new Logger({ serviceName: names.serviceName }),
    metrics: new Metrics({ serviceName: names.serviceName, namespace: names.metricsNamespace }),
  };
}

/**
 * Logs one line per call and counts it. The line carries what an operator needs (outcome,
 * reason, event type, timestamp age, matched key stage, request id) and never the key, the
 * payload or personal data: only fields of the decision are logged, never the request.
 * Metrics are stored; the handler publishes them once per invocation.
 *
 * @param observability - logger and metrics
 * @param outcome - the decision
 * @param apiRequestId - API Gateway's request id
 * @param endpoint - the endpoint called, when the receiver serves several
 */
export function recordOutcome(
  { logger, metrics }: Observability,
  outcome: ReceiveOutcome,
  apiRequestId: string | undefined,
  endpoint?: string,
): void {
  const { details } = outcome;
  const fields = {
    ...endpointField(endpoint),
    outcome: outcome.kind,
    status: outcome.status,
    ...('reason' in outcome ? { reason: outcome.reason } : {}),
    ...(apiRequestId === undefined ? {} : { api_request_id: apiRequestId }),
    ...(details.eventType === undefined ? {} : { event_type: details.eventType.slice(0, 100) }),
    ...(details.timestampAgeSeconds === undefined
      ? {}
      : { timestamp_age_seconds: details.timestampAgeSeconds }),
    ...(details.keyStage === undefined ? {} : { key_stage: details.keyStage }),
    ...(details.signedForm === undefined ? {} : { signed_form: details.signedForm }),
    ...(details.keysRefreshed ? { keys_refreshed: true } : {}),
  };
  metrics.addMetric(METRIC_NAMES.received, MetricUnit.Count, 1);
  switch (outcome.kind) {
    case 'queued':
      metrics.addMetric(METRIC_NAMES.forwarded, MetricUnit.Count, 1);
      logger.info('Webhook queued', fields);
      return;
    case 'ignored':
      metrics.addMetric(METRIC_NAMES.ignored, MetricUnit.Count, 1);
      logger.info('Webhook ignored: event not in FORWARD_EVENTS', fields);
      return;
    case 'rejected':
      metrics.addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
      if (outcome.status === 401)
        metrics.addMetric(METRIC_NAMES.signatureRejected, MetricUnit.Count, 1);
      // Emitted at once with its own dimension so the per-reason breakdown does not split the
      // plain WebhookRejected count that alarms watch.
      metrics
        .singleMetric()
        .addDimension('reason', outcome.reason)
        .addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
      logger.warn('Webhook rejected', fields);
      return;
    case 'unavailable':
      // Key-load failures are counted where they happen (recordKeyLoadFailure), once per attempt.
      if (outcome.reason === 'queue_unavailable') {
        metrics.addMetric(METRIC_NAMES.queueSendFailure, MetricUnit.Count, 1);
      }
      logger.error('Webhook not accepted: dependency unavailable, answered 503', {
        ...fields,
        error: outcome.error,
      });
      return;
  }
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
  { logger, metrics }: Observability,
  error: KeyLoadError,
  usingStaleKeys: boolean,
  endpoint?: string,
): void {
  metrics.addMetric(METRIC_NAMES.keyLoadFailure, MetricUnit.Count, 1);
  logger.error(
    usingStaleKeys
      ? 'Reloading the signing keys failed; still using the keys loaded before'
      : 'Loading the signing keys failed; answering 503',
    { ...endpointField(endpoint), error, using_stale_keys: usingStaleKeys },
  );
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
  { logger, metrics }: Observability,
  path: string | undefined,
  apiRequestId: string | undefined,
): void {
  metrics.addMetric(METRIC_NAMES.received, MetricUnit.Count, 1);
  metrics.addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
  metrics
    .singleMetric()
    .addDimension('reason', UNKNOWN_ENDPOINT)
    .addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
  logger.warn('Webhook rejected: no endpoint at this path', {
    outcome: 'rejected',
    status: 404,
    reason: UNKNOWN_ENDPOINT,
    ...(path === undefined ? {} : { path: path.slice(0, 200) }),
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
  { logger, metrics }: Observability,
  eventKeys: readonly string[],
): void {
  metrics.addMetric(METRIC_NAMES.received, MetricUnit.Count, 1);
  metrics.addMetric(METRIC_NAMES.rejected, MetricUnit.Count, 1);
  logger.error('unsupported_event: not an API Gateway or function URL proxy event, answered 400', {
    outcome: 'rejected',
    status: 400,
    reason: 'unsupported_event',
    event_keys: eventKeys,
  });
}
