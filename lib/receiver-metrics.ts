import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import { ENDPOINT_DIMENSION, METRIC_NAMES } from '../lambda/contract/metric-names.js';

/**
 * The metrics the receiver and the example consumer publish (EMF, namespace
 * `POWERTOOLS_METRICS_NAMESPACE`), as the alarms and the dashboard read them: one place that
 * knows their namespace and dimensions.
 * @module
 */

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
