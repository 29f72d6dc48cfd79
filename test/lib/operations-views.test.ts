import { randomUUID } from 'node:crypto';
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConsumerConfig } from '../../lambda/consumer/config.js';
import { createConsumerHandler } from '../../lambda/consumer/handler.js';
import { processBooking } from '../../lambda/consumer/process-booking.js';
import { ARCHIVE_CLIENT_SETTINGS, CLIENT_SETTINGS } from '../../lambda/receiver/handler.js';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { lambdaContext, restApiEvent } from '../support/api-gateway-events.js';
import { bookingPayload, phpJsonEncode, signedCall } from '../support/booking.js';
import { type CapturedOutput, captureOutput } from '../support/capture-output.js';
import type { CfnTemplate } from '../support/deployed-template.js';
import { useLocalDynamoDb } from '../support/local-dynamodb.js';
import { LOCAL_AWS_SETTINGS, useLocalSqs } from '../support/local-sqs.js';
import { withoutSdkNodeVersionWarning } from '../support/log-lines.js';
import { filteredDataPoints, templateMetricFilters } from '../support/metric-filters.js';
import { receiverOnNewQueue } from '../support/receiver-harness.js';
import { refusingEndpoint } from '../support/refusing-endpoint.js';
import { FakeSecretStore } from '../support/secret-store.js';
import { useSecretsManagerServer } from '../support/secrets-manager-server.js';
import { sqsEvent } from '../support/sqs-events.js';
import { templateTestApp } from './cdk-app.js';
import { deployedValue } from './deployed-value.js';
import { type Synthesized, synthesize } from './synthesize.js';

const NAMESPACE = 'ServiceWebhookReceiver';

/** A metric as an alarm or a widget names it, or as an EMF blob declares it. */
interface MetricRef {
  readonly namespace: string;
  readonly name: string;
  /** Dimension values; `*` for a dimension a search matches whatever its value. */
  readonly dimensions: Readonly<Record<string, string>>;
}

const physical = (logicalId: string, attribute?: string) =>
  `<${logicalId}${attribute ? `.${attribute}` : ''}>`;

/** The dashboard's body as deployed, parsed. */
function dashboardBody({ template }: Synthesized): {
  widgets: { properties: { title: string; metrics?: unknown[][] } }[];
} {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  return JSON.parse(deployedValue(dashboards[0]?.Properties.DashboardBody, physical) as string);
}

/** Every metric of `namespace` the dashboard's graphs name, searches included. */
function dashboardMetrics(synthesized: Synthesized): MetricRef[] {
  return dashboardBody(synthesized).widgets.flatMap(({ properties }) =>
    (properties.metrics ?? []).flatMap((line): MetricRef[] => {
      const [first] = line;
      if (typeof first === 'object' && first !== null && 'expression' in first) {
        return searchedMetrics(String(first.expression));
      }
      const [namespace, name, ...rest] = line.filter((part) => typeof part === 'string');
      const dimensions: Record<string, string> = {};
      for (let index = 0; index + 1 < rest.length; index += 2) {
        dimensions[rest[index] as string] = rest[index + 1] as string;
      }
      return [{ namespace: String(namespace), name: String(name), dimensions }];
    }),
  );
}

/** The metrics a `SEARCH('{Namespace,dim,...} MetricName="X" dim="v"', ...)` expression finds. */
function searchedMetrics(expression: string): MetricRef[] {
  const schema = /SEARCH\('\{([^}]+)\}/.exec(expression)?.[1]?.split(',') ?? [];
  const [namespace = '', ...keys] = schema;
  const terms = Object.fromEntries(
    [...expression.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]),
  );
  const dimensions = Object.fromEntries(keys.map((key) => [key, terms[key] ?? '*']));
  return [{ namespace, name: String(terms.MetricName), dimensions }];
}

/** Every metric the alarms watch, single metrics and those inside metric math. */
function alarmMetrics({ template }: Synthesized): MetricRef[] {
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).flatMap(
    ({ Properties: alarm }) => {
      const stats = alarm.Metrics
        ? alarm.Metrics.flatMap(
            (query: { MetricStat?: { Metric: Record<string, unknown> } }) =>
              query.MetricStat?.Metric ?? [],
          )
        : [alarm];
      return stats.map(
        (metric: {
          Namespace: string;
          MetricName: string;
          Dimensions?: { Name: string; Value: string }[];
        }) => ({
          namespace: metric.Namespace,
          name: metric.MetricName,
          dimensions: Object.fromEntries(
            (metric.Dimensions ?? []).map(({ Name, Value }) => [Name, Value]),
          ),
        }),
      );
    },
  );
}

/**
 * Every metric `output` publishes: those its EMF blobs declare, one entry per dimension set, and
 * those the metric filters on the receiver's log group count from its lines.
 */
function emittedMetrics(output: CapturedOutput, synthesized: Synthesized): MetricRef[] {
  const { template, stack, receiver } = synthesized;
  const logGroup = stack.getLogicalId(
    receiver.receiverFunction.logGroup.node.defaultChild as CfnElement,
  );
  const filtered = filteredDataPoints(
    templateMetricFilters(template.toJSON() as CfnTemplate, logGroup),
    output.text().split('\n'),
  ).map(({ namespace, name, dimensions }) => ({ namespace, name, dimensions }));
  return [...filtered, ...emfMetrics(output)];
}

/** Every metric the EMF blobs in `output` declare, one entry per dimension set. */
function emfMetrics(output: CapturedOutput): MetricRef[] {
  return output.metrics().flatMap((blob) => {
    const { CloudWatchMetrics } = blob._aws as {
      CloudWatchMetrics: {
        Namespace: string;
        Dimensions: string[][];
        Metrics: { Name: string }[];
      }[];
    };
    return CloudWatchMetrics.flatMap(({ Namespace, Dimensions, Metrics }) =>
      Dimensions.flatMap((set) =>
        Metrics.map(({ Name }) => ({
          namespace: Namespace,
          name: Name,
          dimensions: Object.fromEntries(set.map((key) => [key, String(blob[key])])),
        })),
      ),
    );
  });
}

/** Whether `emitted` holds a metric that `wanted` names: same namespace, name and dimension set. */
function isEmitted(wanted: MetricRef, emitted: readonly MetricRef[]): boolean {
  const keys = Object.keys(wanted.dimensions).sort().join();
  return emitted.some(
    (metric) =>
      metric.namespace === wanted.namespace &&
      metric.name === wanted.name &&
      Object.keys(metric.dimensions).sort().join() === keys &&
      Object.entries(wanted.dimensions).every(
        ([key, value]) => value === '*' || metric.dimensions[key] === value,
      ),
  );
}

describe('Class: WebhookReceiver (silence alarms and dashboard)', () => {
  let single: Synthesized;
  let endpoints: Synthesized;
  let quiet: Synthesized;

  beforeAll(() => {
    single = synthesize(() => ({ consumer: true, serviceName: 'bookings' }));
    endpoints = synthesize(() => ({
      ingress: 'rest-api',
      consumer: true,
      idempotency: true,
      serviceName: 'bookings',
      endpoints: [{ name: 'eu' }, { name: 'us-west' }],
      silenceAlarmMinutes: 30,
      archive: true,
    }));
    quiet = synthesize(() => ({ silenceAlarmMinutes: 0, dashboard: false }));
  });

  describe('Silence alarms', () => {
    it('raises one alarm after 60 minutes without a verified delivery, missing data breaching', () => {
      // Prepare
      const { receiver, resource } = single;

      // Assess
      expect(receiver.alarms.silence).toHaveLength(1);
      expect(resource(receiver.alarms.silence[0]).Properties).toMatchObject({
        Namespace: NAMESPACE,
        MetricName: 'WebhookVerified',
        Dimensions: [{ Name: 'service', Value: 'bookings' }],
        Statistic: 'Sum',
        Period: 3600,
        EvaluationPeriods: 1,
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        TreatMissingData: 'breaching',
      });
    });

    it('raises one alarm per endpoint, each on its own endpoint dimension', () => {
      // Prepare
      const { receiver, resource } = endpoints;

      // Assess
      const properties = receiver.alarms.silence.map((alarm) => resource(alarm).Properties);
      expect(properties.map(({ Dimensions }) => Dimensions)).toEqual([
        [
          { Name: 'endpoint', Value: 'eu' },
          { Name: 'service', Value: 'bookings' },
        ],
        [
          { Name: 'endpoint', Value: 'us-west' },
          { Name: 'service', Value: 'bookings' },
        ],
      ]);
      for (const alarm of properties) {
        expect(alarm).toMatchObject({
          MetricName: 'WebhookVerified',
          Period: 1800,
          TreatMissingData: 'breaching',
        });
      }
      expect(properties[1]?.AlarmDescription).toContain('on endpoint us-west for 30 minutes');
    });

    it('creates no silence alarm with silenceAlarmMinutes 0', () => {
      // Prepare
      const { receiver, template } = quiet;

      // Assess
      expect(receiver.alarms.silence).toEqual([]);
      template.resourcePropertiesCountIs(
        'AWS::CloudWatch::Alarm',
        { MetricName: 'WebhookVerified' },
        0,
      );
    });

    it.each([-1, 1.5, 1441])('refuses silenceAlarmMinutes %s', (minutes) => {
      // Prepare
      const stack = new Stack(templateTestApp(), 'Refused');

      // Act
      const build = () => new WebhookReceiver(stack, 'Receiver', { silenceAlarmMinutes: minutes });

      // Assess
      expect(build).toThrow(
        new InvalidWebhookReceiverPropsError(
          `silenceAlarmMinutes must be a whole number from 0 to 1440, got ${minutes}`,
        ),
      );
    });
  });

  describe('Dashboard', () => {
    it('shows deliveries, latency, queues, consumer, keys, archive and throttling; none with dashboard false', () => {
      // Prepare
      const titles = dashboardBody(endpoints).widgets.map(({ properties }) => properties.title);

      // Assess
      expect(titles).toEqual([
        'Deliveries per minute by outcome',
        'Rejections per minute by reason',
        'Verified deliveries per minute by endpoint',
        'Rejections per minute by endpoint',
        'Latency p50 / p99 (ms)',
        'Queue: messages waiting and age of the oldest (s)',
        'Dead-letter queue depth (npm run redrive moves them back)',
        'Consumer: failed records, skipped duplicates, errors',
        'Signing keys: loads and failures',
        'Archive: calls not archived, and age (s) of the oldest record not yet in S3',
        'Calls turned away: API 429s and throttled invocations',
      ]);
      expect(endpoints.receiver.dashboard).toBeDefined();
      expect(quiet.receiver.dashboard).toBeUndefined();
      quiet.template.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    });

    it('graphs latency p50 and p99 of the function and the front door, the queues and the archive', () => {
      // Prepare
      const lines = dashboardBody(endpoints).widgets.flatMap(
        ({ properties }) => properties.metrics ?? [],
      );
      const named = (namespace: string, name: string) =>
        lines.filter((line) => line[0] === namespace && line[1] === name);

      // Assess
      const stats = (namespace: string, name: string) =>
        named(namespace, name).map((line) => (line.at(-1) as { stat: string }).stat);
      expect(stats('AWS/Lambda', 'Duration')).toEqual(['p50', 'p99']);
      expect(stats('AWS/ApiGateway', 'Latency')).toEqual(['p50', 'p99']);
      expect(named('AWS/SQS', 'ApproximateNumberOfMessagesVisible')).toHaveLength(2);
      expect(named('AWS/SQS', 'ApproximateAgeOfOldestMessage')).toHaveLength(1);
      expect(stats('AWS/Firehose', 'DeliveryToS3.DataFreshness')).toEqual(['Maximum']);
    });
  });

  describe('Every metric an alarm or a widget names in the receiver namespace', () => {
    withoutSdkNodeVersionWarning();
    const sqs = useLocalSqs();
    const dynamoDb = useLocalDynamoDb();
    const secretsManager = useSecretsManagerServer(new FakeSecretStore(() => new Date()));
    let output: CapturedOutput;

    beforeEach(() => {
      vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamoDb().endpoint);
      vi.stubEnv('AWS_REGION', LOCAL_AWS_SETTINGS.region);
      vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_AWS_SETTINGS.credentials.accessKeyId);
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_AWS_SETTINGS.credentials.secretAccessKey);
    });
    afterEach(() => {
      output?.restore();
      vi.unstubAllEnvs();
      vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
    });

    /** The variables of a function as deployed, the literal ones only. */
    const literalVariables = ({ resource }: Synthesized, fn: WebhookReceiver['consumer']) =>
      Object.fromEntries(
        Object.entries(
          resource(fn).Properties.Environment.Variables as Record<string, unknown>,
        ).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      );

    it('is published by the deployed handlers: from the EMF they print and the metric filters on their lines', async () => {
      // Prepare: the receiver and consumer configured as the template deploys them, their
      // secrets, queue and table on the embedded servers
      const { receiver } = endpoints;
      const receiverEnv = literalVariables(endpoints, receiver.receiverFunction);
      const consumerEnv = literalVariables(endpoints, receiver.consumer);
      const server = secretsManager();
      const secretIds = { eu: `eu-${randomUUID()}`, 'us-west': `us-${randomUUID()}` };
      for (const [name, secretId] of Object.entries(secretIds)) {
        const store = new FakeSecretStore(() => new Date());
        store.put(`${name}-key`);
        server.stores.set(secretId, store);
      }
      const failing = `failing-${randomUUID()}`;
      server.behaviourBySecret.set(failing, {
        kind: 'error',
        type: 'AccessDeniedException',
        status: 400,
      });
      const dependencies = { secretsManagerClient: server.client(CLIENT_SETTINGS) };
      // An archive that refuses every write: each answered call counts ArchiveWriteFailure.
      const firehoseClient = new FirehoseClient({
        ...LOCAL_AWS_SETTINGS,
        ...ARCHIVE_CLIENT_SETTINGS,
        endpoint: await refusingEndpoint(),
      });
      const serving = await receiverOnNewQueue(
        sqs(),
        {
          ...receiverEnv,
          ENDPOINT_SECRET_IDS: JSON.stringify(secretIds),
          ARCHIVE_STREAM: 'unreachable-archive',
        },
        { ...dependencies, firehoseClient },
      );
      const keyless = await receiverOnNewQueue(
        sqs(),
        { ...receiverEnv, SECRET_ID: failing },
        dependencies,
      );
      const queueless = await receiverOnNewQueue(
        sqs(),
        { ...receiverEnv, WEBHOOK_SECRET: 'local-key' },
        dependencies,
      );
      const now = Math.floor(Date.now() / 1000);
      const booking = JSON.stringify(bookingPayload());
      const cancelled = JSON.stringify(bookingPayload({ event: 'event_cancelled' }));
      const call = (path: string, key: string, body = booking) =>
        restApiEvent({ ...signedCall(body, { key, timestamp: now }), path });
      const consumer = createConsumerHandler(
        loadConsumerConfig({
          ...consumerEnv,
          IDEMPOTENCY_TABLE: await dynamoDb().createIdempotencyTable(),
        }),
        processBooking,
      );
      const copy = { body: phpJsonEncode(bookingPayload()), attributes: { dedup_key: 'k1' } };
      output = captureOutput();

      // Act: every outcome the handlers count
      await serving.invoke(call('/webhook/eu', 'eu-key'));
      await serving.invoke(call('/webhook/us-west', 'us-west-key', cancelled));
      await serving.invoke(call('/webhook/eu', 'forged'));
      await serving.invoke(call('/webhook/us-west', 'forged'));
      await keyless.invoke(call('/webhook', 'any'));
      await sqs().client.send(new DeleteQueueCommand({ QueueUrl: queueless.queueUrl }));
      await queueless.invoke(call('/webhook', 'local-key'));
      await consumer(
        sqsEvent([
          { ...copy, messageId: 'm1' },
          { ...copy, messageId: 'm2' },
          { body: cancelled, messageId: 'm3', attributes: { event: 'event_cancelled' } },
          { body: '{}', messageId: 'm4', attributes: { event: 'event_booked' } },
        ]),
        lambdaContext('webhook-consumer'),
      );
      output.restore();

      // Assess
      const named = [...alarmMetrics(endpoints), ...dashboardMetrics(endpoints)].filter(
        ({ namespace, name }) => namespace === NAMESPACE && !name.startsWith('ApiThrottled-'),
      );
      const emitted = emittedMetrics(output, endpoints);
      expect(named.length).toBeGreaterThan(15);
      expect(named.filter((metric) => !isEmitted(metric, emitted))).toEqual([]);
    });

    it('counts API 429s with the metric filter the dashboard and the alarm read', () => {
      // Prepare
      const { template } = endpoints;
      const throttled = [...alarmMetrics(endpoints), ...dashboardMetrics(endpoints)].filter(
        ({ name }) => name.startsWith('ApiThrottled-'),
      );

      // Assess
      expect(throttled).toEqual([
        { namespace: NAMESPACE, name: 'ApiThrottled-bookings', dimensions: {} },
        { namespace: NAMESPACE, name: 'ApiThrottled-bookings', dimensions: {} },
      ]);
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        MetricTransformations: [
          { MetricNamespace: NAMESPACE, MetricName: 'ApiThrottled-bookings', MetricValue: '1' },
        ],
      });
    });
  });
});
