import { Aws, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ARCHIVE_LAYOUT, ARCHIVE_LIMITS } from '../lambda/contract/archive-layout.js';
import { endpointIdSuffix } from '../lambda/contract/endpoints.js';
import { CONFIG_DEFAULTS } from '../lambda/contract/environment.js';
import { METRIC_NAMES } from '../lambda/contract/metric-names.js';
import { archiveDeliveryAge } from './archive.js';
import { acknowledgeNagFindings } from './nag.js';
import { receiverMetric as metricOfReceiver, verifiedDeliveries } from './receiver-metrics.js';
import type { ReceiverSettings } from './receiver-settings.js';

/** The alarms a receiver creates, each notifying `alarmActions` and the e-mail topic when given. */
export interface WebhookReceiverAlarms {
  /**
   * The dead-letter queue holds at least one message: a booking the consumer could not process.
   * Absent with `existingQueue`, whose dead-letter queue (if any) is the owner's to watch.
   */
  readonly deadLetterQueueNotEmpty: cloudwatch.Alarm | undefined;
  /** The oldest message in the queue is older than the threshold: the consumer is down or slow. */
  readonly oldestMessageAge: cloudwatch.Alarm;
  /** The receiver function failed with an uncaught error (a bug; outages are answered 503). */
  readonly receiverErrors: cloudwatch.Alarm;
  /** The receiver function was throttled by Lambda concurrency limits. */
  readonly receiverThrottles: cloudwatch.Alarm;
  /** The front door answered 5xx: a delivery the sender must retry. */
  readonly apiServerErrors: cloudwatch.Alarm;
  /**
   * The API stage answered 429: it turned calls away for capacity (its throttle, or the
   * account's API Gateway quota), genuine deliveries among them unless a flood is under way. Read
   * from the access log, since API Gateway's own `4XXError`/`4xx` metric mixes them with the 401s
   * of forged calls. Absent with `function-url`, which has no stage: Lambda's throttles of it are
   * `receiverThrottles`.
   */
  readonly apiThrottles: cloudwatch.Alarm | undefined;
  /** A spike of signature rejections (the receiver's `SignatureRejected` metric). */
  readonly signatureRejections: cloudwatch.Alarm;
  /** The keys could not be loaded (`KeyLoadFailure`): calls are being answered 503. */
  readonly keyLoadFailures: cloudwatch.Alarm;
  /**
   * Calls were answered but not archived (`ArchiveWriteFailure`): a replay would miss them.
   * Only with `archive`.
   */
  readonly archiveWriteFailures: cloudwatch.Alarm | undefined;
  /**
   * Firehose has held a record for more than 600 s (two buffer intervals) without
   * writing it to the bucket (`DeliveryToS3.DataFreshness`): every write the receiver made was
   * taken, but the archive is not growing (a key or bucket policy Firehose cannot use, an S3
   * outage). Firehose retries for 24 hours, then drops the records. Only with `archive`.
   */
  readonly archiveDeliveryDelayed: cloudwatch.Alarm | undefined;
  /**
   * No verified delivery (`WebhookVerified`) for `silenceAlarmMinutes`: one alarm, or one per
   * named endpoint, in the order of `endpoints`. Missing data is breaching: silence is exactly
   * when the metric has none. Empty with `silenceAlarmMinutes: 0`.
   */
  readonly silence: readonly cloudwatch.Alarm[];
}

/** What the alarms watch. */
export interface AlarmTargets {
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue | undefined;
  readonly receiverFunction: lambda.IFunction;
  readonly serverErrors: cloudwatch.IMetric;
  /** The API's access log group, whose 429 lines {@link WebhookReceiverAlarms.apiThrottles} counts. */
  readonly accessLogGroup: logs.ILogGroup | undefined;
  /** The archive's delivery stream, whose delivery to the bucket {@link WebhookReceiverAlarms.archiveDeliveryDelayed} watches. */
  readonly archiveStream: firehose.IDeliveryStream | undefined;
}

/**
 * Age of the oldest record not yet in the bucket above which the archive counts as stalled: two
 * buffer intervals. A healthy stream writes each buffer within one interval of its first record
 * (AWS recommends alarming beyond the buffering limit); a second one absorbs a slow write.
 */
export const ARCHIVE_DELIVERY_DELAY_SECONDS = 2 * ARCHIVE_LAYOUT.bufferSeconds;

/**
 * Name of the metric counting the stage's 429 answers, in the receiver's namespace. A metric
 * filter can take dimensions only from fields of the log line, so the instance's service name is
 * part of the name: two receivers in one account never share the metric.
 */
export function apiThrottledMetricName(serviceName: string): string {
  return `ApiThrottled-${serviceName}`;
}

/** An SSL-only topic that CloudWatch alarms of this account and region may publish to, with the address subscribed. */
export function createAlarmTopic(scope: Construct, email: string): sns.Topic {
  const topic = new sns.Topic(scope, 'AlarmTopic', {
    displayName: 'Webhook receiver alarms',
    enforceSSL: true,
  });
  // A topic policy replaces SNS's default one, so CloudWatch must be allowed explicitly, and only
  // for alarms of this account and region.
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarms',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: {
          'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
        },
      },
    }),
  );
  const subscription = topic.addSubscription(new EmailSubscription(email));
  acknowledgeNagFindings(subscription, {
    pack: 'Serverless',
    rule: 'Serverless-SNSRedrivePolicy',
    reason:
      'Serverless-SNSRedrivePolicy (redrive policy): a notification e-mail that cannot be delivered loses nothing, because the alarm it announced stays in the ALARM state in CloudWatch until the cause is fixed.',
  });
  return topic;
}

/**
 * The receiver's alarms. Their names are left to CloudFormation (stack name, logical id and a
 * random suffix), and the receiver's own metrics carry the instance's service name, so two
 * receivers never share an alarm name or a metric.
 */
export function createAlarms(
  scope: Construct,
  settings: ReceiverSettings,
  targets: AlarmTargets,
  actions: readonly cloudwatch.IAlarmAction[],
): WebhookReceiverAlarms {
  const fiveMinutes = Duration.minutes(5);
  const alarm = (
    id: string,
    options: { metric: cloudwatch.IMetric; threshold: number; description: string },
  ): cloudwatch.Alarm => {
    const created = new cloudwatch.Alarm(scope, `${id}Alarm`, {
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      // No traffic means nothing is wrong: metrics for queues and functions are absent when idle.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    created.addAlarmAction(...actions);
    return created;
  };
  const receiverMetric = (metricName: string) =>
    metricOfReceiver(settings.serviceName, metricName, { period: fiveMinutes });
  const { deadLetterQueue, accessLogGroup } = targets;
  return {
    deadLetterQueueNotEmpty: deadLetterQueue
      ? alarm('DeadLetterQueueNotEmpty', {
          metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: cloudwatch.Stats.MAXIMUM,
            period: Duration.minutes(1),
          }),
          threshold: 0,
          description: 'The dead-letter queue holds bookings the consumer failed on 5 times.',
        })
      : undefined,
    oldestMessageAge: alarm('OldestMessageAge', {
      metric: targets.queue.metricApproximateAgeOfOldestMessage({
        statistic: cloudwatch.Stats.MAXIMUM,
        period: Duration.minutes(1),
      }),
      threshold: settings.messageAgeAlarmThreshold.toSeconds(),
      description: 'Queued bookings wait too long: the consumer is down or too slow.',
    }),
    receiverErrors: alarm('ReceiverErrors', {
      metric: targets.receiverFunction.metricErrors({ period: fiveMinutes }),
      threshold: 0,
      description: 'The receiver function failed with an uncaught error.',
    }),
    receiverThrottles: alarm('ReceiverThrottles', {
      metric: targets.receiverFunction.metricThrottles({ period: fiveMinutes }),
      threshold: 0,
      description: 'The receiver function was throttled; deliveries were refused.',
    }),
    apiServerErrors: alarm('ApiServerErrors', {
      metric: targets.serverErrors,
      threshold: 0,
      description:
        'The front door answered 5xx: deliveries were not acknowledged and will be retried.',
    }),
    apiThrottles: accessLogGroup
      ? alarm('ApiThrottles', {
          metric: accessLogGroup
            .addMetricFilter('ApiThrottledCalls', {
              // The access log's status is text ("429"): both formats quote every variable.
              filterPattern: logs.FilterPattern.stringValue('$.status', '=', '429'),
              metricNamespace: CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
              metricName: apiThrottledMetricName(settings.serviceName),
              metricValue: '1',
            })
            .metric({ statistic: cloudwatch.Stats.SUM, period: fiveMinutes }),
          threshold: 0,
          description:
            'The API stage answered 429: calls were turned away for capacity and must be re-sent (raise throttleRateLimit if they were genuine).',
        })
      : undefined,
    signatureRejections: alarm('SignatureRejections', {
      metric: receiverMetric(METRIC_NAMES.signatureRejected),
      threshold: settings.signatureRejectionAlarmThreshold - 1,
      description: 'A spike of requests with a missing or wrong signature: forgery or a stale key.',
    }),
    keyLoadFailures: alarm('KeyLoadFailures', {
      metric: receiverMetric(METRIC_NAMES.keyLoadFailure),
      threshold: 0,
      description:
        'The signing keys could not be loaded from Secrets Manager: calls are being answered 503.',
    }),
    archiveWriteFailures: settings.archive
      ? alarm('ArchiveWriteFailure', {
          metric: receiverMetric(METRIC_NAMES.archiveWriteFailure),
          threshold: 0,
          description: `Calls were answered but not archived within the ${ARCHIVE_LIMITS.writeBoundMs} ms bound: a replay of that time would miss them.`,
        })
      : undefined,
    archiveDeliveryDelayed: targets.archiveStream
      ? alarm('ArchiveDeliveryDelayed', {
          metric: archiveDeliveryAge(targets.archiveStream, { period: fiveMinutes }),
          threshold: ARCHIVE_DELIVERY_DELAY_SECONDS,
          description: `The archive's Firehose stream has held a record over ${ARCHIVE_DELIVERY_DELAY_SECONDS} s without writing it to the bucket (DeliveryToS3.DataFreshness): check the stream's error log group, the bucket's key and policy. Firehose retries for 24 hours, then drops the records.`,
        })
      : undefined,
    silence: createSilenceAlarms(scope, settings, actions),
  };
}

/**
 * The silence alarm(s): the sum of verified deliveries over one period of `silenceAlarmMinutes`
 * is below 1. Without endpoints one alarm on the totals; with them one per endpoint, since one
 * sender going quiet is hidden in the total of the others.
 */
function createSilenceAlarms(
  scope: Construct,
  settings: ReceiverSettings,
  actions: readonly cloudwatch.IAlarmAction[],
): cloudwatch.Alarm[] {
  const minutes = settings.silenceAlarmMinutes;
  if (minutes === 0) return [];
  const period = Duration.minutes(minutes);
  const watched =
    settings.endpoints.length === 0
      ? [{ id: '', endpoint: undefined, of: '' }]
      : settings.endpoints.map(({ name }) => ({
          id: endpointIdSuffix(name),
          endpoint: name,
          of: ` on endpoint ${name}`,
        }));
  return watched.map(({ id, endpoint, of }) => {
    const created = new cloudwatch.Alarm(scope, `Silence${id}Alarm`, {
      metric: verifiedDeliveries(settings.serviceName, period, endpoint),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `No verified delivery${of} for ${minutes} minutes: the sender stopped, or something between it and the receiver fails (DNS, certificate, WAF, an outage on either side).`,
    });
    created.addAlarmAction(...actions);
    return created;
  });
}
