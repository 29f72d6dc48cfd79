import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import {
  DECISION_FIELDS,
  DECISION_METRICS,
  type DecisionMetric,
} from '../lambda/contract/decision-metrics.js';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import { ENDPOINT_DIMENSION, METRIC_NAMES } from '../lambda/contract/metric-names.js';

/**
 * The metrics the receiver and the example consumer publish (namespace
 * `POWERTOOLS_METRICS_NAMESPACE`), as the alarms and the dashboard read them: one place that
 * knows their namespace and dimensions. The receiver's per-call counts come from metric filters
 * on its log group ({@link countDecisionLines}), its other events and the consumer's from EMF.
 * @module
 */

/**
 * Counts the receiver's calls from their decision lines: one metric filter on its log group per
 * metric of `DECISION_METRICS`, each line counted once per metric it matches, its dimensions read
 * from the line's fields. Filters are free; their metrics cost as the EMF metrics did.
 *
 * @param logGroup - the receiver's log group
 */
export function countDecisionLines(logGroup: logs.ILogGroup): void {
  for (const metric of DECISION_METRICS) {
    logGroup.addMetricFilter(decisionFilterId(metric), {
      filterPattern: decisionPattern(metric),
      metricNamespace: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
      metricName: metric.name,
      metricValue: '1',
      unit: cloudwatch.Unit.COUNT,
      dimensions: Object.fromEntries(metric.dimensions.map((field) => [field, `$.${field}`])),
    });
  }
}

/** E.g. `WebhookRejected`, `WebhookRejectedByReason`. */
function decisionFilterId({ name, dimensions }: DecisionMetric): string {
  const [, ...more] = dimensions;
  const by = more.map((field) => `${field[0]?.toUpperCase()}${field.slice(1)}`).join('And');
  return by === '' ? name : `${name}By${by}`;
}

/** The JSON filter pattern of a decision metric: its conditions, and its dimensions present. */
function decisionPattern({ outcomes, status, reason, dimensions }: DecisionMetric) {
  const field = (name: string) => `$.${name}`;
  const { FilterPattern } = logs;
  const outcome = field(DECISION_FIELDS.outcome);
  return FilterPattern.all(
    outcomes === undefined
      ? FilterPattern.exists(outcome)
      : FilterPattern.any(...outcomes.map((kind) => FilterPattern.stringValue(outcome, '=', kind))),
    ...(status === undefined
      ? []
      : [FilterPattern.numberValue(field(DECISION_FIELDS.status), '=', status)]),
    ...(reason === undefined
      ? []
      : [FilterPattern.stringValue(field(DECISION_FIELDS.reason), '=', reason)]),
    ...dimensions.map((name) => FilterPattern.exists(field(name))),
  );
}

/** How to read one of the receiver's metrics. */
export interface ReceiverMetricOptions {
  readonly period: Duration;
  /** @default Sum */
  readonly statistic?: string;
  /** The named endpoint whose counts to read (its `endpoint` dimension); absent for the totals. */
  readonly endpoint?: string;
  readonly label?: string;
}

/**
 * A metric published under `service` (the receiver's service name, or the consumer's), and
 * `endpoint` for the per-endpoint counts.
 *
 * @param serviceName - the `service` dimension
 * @param metricName - a name from `METRIC_NAMES` or `CONSUMER_METRIC_NAMES`
 * @param options - period, statistic, endpoint, label
 */
export function receiverMetric(
  serviceName: string,
  metricName: string,
  options: ReceiverMetricOptions,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
    metricName,
    dimensionsMap: {
      service: serviceName,
      ...(options.endpoint === undefined ? {} : { [ENDPOINT_DIMENSION]: options.endpoint }),
    },
    statistic: options.statistic ?? cloudwatch.Stats.SUM,
    period: options.period,
    ...(options.label === undefined ? {} : { label: options.label }),
  });
}

/**
 * Verified deliveries (`WebhookVerified`: queued plus ignored, since a verified event the
 * receiver does not forward still shows the sender is delivering), of one named endpoint or of
 * the whole receiver. A period without any has no data point.
 *
 * @param serviceName - the receiver's service name
 * @param period - the sum's period
 * @param endpoint - a named endpoint, or absent for the whole receiver
 */
export function verifiedDeliveries(
  serviceName: string,
  period: Duration,
  endpoint?: string,
): cloudwatch.Metric {
  return receiverMetric(serviceName, METRIC_NAMES.verified, {
    period,
    ...(endpoint === undefined ? {} : { endpoint }),
  });
}
