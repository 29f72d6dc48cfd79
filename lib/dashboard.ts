import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as apigatewayv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import { CONSUMER_METRIC_NAMES, METRIC_NAMES } from '../lambda/contract/metric-names.js';
import { apiThrottledMetricName } from './alarms.js';
import { archiveDeliveryAge } from './archive.js';
import { consumerServiceName } from './consumer-function.js';
import { receiverMetric } from './receiver-metrics.js';
import type { ReceiverSettings } from './receiver-settings.js';

/** What the dashboard shows, besides the receiver's own metrics. */
export interface DashboardTargets {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue | undefined;
  readonly receiverFunction: lambda.IFunction;
  readonly api: apigateway.RestApi | apigatewayv2.HttpApi | undefined;
  /** The access log group whose 429 lines the `ApiThrottled-<service>` metric filter counts. */
  readonly accessLogGroup: logs.ILogGroup | undefined;
  readonly consumer: lambda.IFunction | undefined;
  /** The archive's delivery stream (with `archive`). */
  readonly archiveStream: firehose.IDeliveryStream | undefined;
}

/** Every graph sums or samples per minute: deliveries per minute is what an operator reads. */
const MINUTE = Duration.minutes(1);

/** Half the dashboard's 24-column grid: two graphs a row. */
const HALF = 12;

/**
 * The receiver's dashboard, one row of two graphs per question an operator asks: are deliveries
 * arriving (by outcome, by rejection reason, per endpoint), how fast, is the queue draining, is
 * the consumer failing, are the keys loading, is the archive keeping up, is the front door
 * turning calls away. Widgets name only metrics the code emits (a test reads them from the
 * handlers' EMF); a graph whose resource is absent (no dead-letter queue, no consumer, no
 * archive) is left out. The name is left to
 * CloudFormation, so two receivers never share one; `addWidgets` appends further rows.
 */
export function createDashboard(
  scope: Construct,
  settings: ReceiverSettings,
  targets: DashboardTargets,
): cloudwatch.Dashboard {
  const { serviceName } = settings;
  const receiver = (metricName: string, label: string) =>
    receiverMetric(serviceName, metricName, { period: MINUTE, label });
  const perEndpoint = (metricName: string) =>
    settings.endpoints.map(({ name }) =>
      receiverMetric(serviceName, metricName, { period: MINUTE, endpoint: name, label: name }),
    );
  const consumerMetric = (metricName: string, label: string) =>
    receiverMetric(consumerServiceName(serviceName), metricName, { period: MINUTE, label });
  const maximum = { statistic: cloudwatch.Stats.MAXIMUM, period: MINUTE };
  const percentiles = (metric: (statistic: string) => cloudwatch.IMetric) =>
    ['p50', 'p99'].map(metric);
  const { api, consumer, deadLetterQueue } = targets;

  const graphs: Array<GraphSpec | undefined> = [
    {
      title: 'Deliveries per minute by outcome',
      left: [
        receiver(METRIC_NAMES.received, 'received'),
        receiver(METRIC_NAMES.forwarded, 'queued'),
        receiver(METRIC_NAMES.ignored, 'ignored'),
        receiver(METRIC_NAMES.rejected, 'rejected'),
        receiver(METRIC_NAMES.queueSendFailure, '503 queue unavailable'),
      ],
    },
    {
      title: 'Rejections per minute by reason',
      left: [
        new cloudwatch.MathExpression({
          // A search, so a reason added to the receiver shows without changing the dashboard.
          expression: `SEARCH('{${CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE},service,reason} MetricName="${METRIC_NAMES.rejected}" service="${serviceName}"', 'Sum', 60)`,
          label: '',
          period: MINUTE,
        }),
      ],
    },
    settings.endpoints.length === 0
      ? undefined
      : {
          title: 'Verified deliveries per minute by endpoint',
          left: perEndpoint(METRIC_NAMES.verified),
        },
    settings.endpoints.length === 0
      ? undefined
      : { title: 'Rejections per minute by endpoint', left: perEndpoint(METRIC_NAMES.rejected) },
    {
      title: 'Latency p50 / p99 (ms)',
      left: [
        ...percentiles((statistic) =>
          targets.receiverFunction.metricDuration({
            statistic,
            period: MINUTE,
            label: `receiver ${statistic}`,
          }),
        ),
        ...(api === undefined
          ? []
          : percentiles((statistic) =>
              api.metricLatency({ statistic, period: MINUTE, label: `front door ${statistic}` }),
            )),
      ],
    },
    {
      title: 'Queue: messages waiting and age of the oldest (s)',
      left: [
        targets.queue.metricApproximateNumberOfMessagesVisible({
          ...maximum,
          label: 'messages waiting',
        }),
      ],
      right: [
        targets.queue.metricApproximateAgeOfOldestMessage({
          ...maximum,
          label: 'oldest message age',
        }),
      ],
    },
    deadLetterQueue && {
      title: 'Dead-letter queue depth (npm run redrive moves them back)',
      left: [
        deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          ...maximum,
          label: 'dead letters',
        }),
      ],
    },
    consumer && {
      title: settings.idempotency
        ? 'Consumer: failed records, skipped duplicates, errors'
        : 'Consumer: failed records, errors',
      left: [
        consumerMetric(CONSUMER_METRIC_NAMES.recordFailed, 'records failed'),
        // Only idempotency records tell the consumer a booking is a copy: without them the line
        // would stay empty.
        ...(settings.idempotency
          ? [consumerMetric(CONSUMER_METRIC_NAMES.duplicateSkipped, 'duplicates skipped')]
          : []),
        consumerMetric(CONSUMER_METRIC_NAMES.eventSkipped, 'other events skipped'),
        consumer.metricErrors({ period: MINUTE, label: 'function errors' }),
      ],
    },
    {
      title: 'Signing keys: loads and failures',
      left: [
        receiver(METRIC_NAMES.keyLoaded, 'loaded'),
        receiver(METRIC_NAMES.keyLoadFailure, 'failed'),
      ],
    },
    targets.archiveStream
      ? {
          title: 'Archive: calls not archived, and age (s) of the oldest record not yet in S3',
          left: [receiver(METRIC_NAMES.archiveWriteFailure, 'archive write failures')],
          right: [
            archiveDeliveryAge(targets.archiveStream, {
              period: MINUTE,
              label: 'oldest record not in S3 (s)',
            }),
          ],
        }
      : undefined,
    {
      title: 'Calls turned away: API 429s and throttled invocations',
      left: [
        ...(targets.accessLogGroup === undefined
          ? []
          : [
              new cloudwatch.Metric({
                namespace: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
                metricName: apiThrottledMetricName(serviceName),
                statistic: cloudwatch.Stats.SUM,
                period: MINUTE,
                label: 'API 429',
              }),
            ]),
        targets.receiverFunction.metricThrottles({ period: MINUTE, label: 'receiver throttled' }),
      ],
    },
  ];

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    defaultInterval: Duration.hours(3),
  });
  const widgets = graphs
    .filter((spec): spec is GraphSpec => spec !== undefined)
    .map(
      ({ title, left, right = [] }) =>
        new cloudwatch.GraphWidget({ title, left, right, width: HALF, period: MINUTE }),
    );
  for (let index = 0; index < widgets.length; index += 2) {
    dashboard.addWidgets(...widgets.slice(index, index + 2));
  }
  return dashboard;
}

/** One graph: its title and the metrics on its left and right axes. */
interface GraphSpec {
  readonly title: string;
  readonly left: cloudwatch.IMetric[];
  readonly right?: cloudwatch.IMetric[];
}
