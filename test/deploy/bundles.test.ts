import { randomUUID } from 'node:crypto';
import { CreateTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKIPPED_METRIC } from '../../lambda/consumer/handler.js';
import { ARCHIVE_STREAM } from '../../lambda/contract/environment.js';
import { METRIC_NAMES } from '../../lambda/contract/metric-names.js';
import {
  functionUrlEvent,
  type HttpCall,
  httpApiEvent,
  restApiEvent,
} from '../support/api-gateway-events.js';
import { bookingPayload, signedCall, TEST_KEY } from '../support/booking.js';
import {
  type CfnTemplate,
  DEPLOY_ACCOUNT,
  DEPLOY_REGION,
  deployedAttribute,
  type PhysicalOverride,
  referencedId,
  resolveValue,
  resourcesOfType,
} from '../support/deployed-template.js';
import { useLocalDynamoDb } from '../support/local-dynamodb.js';
import { useLocalSqs } from '../support/local-sqs.js';
import { refusingEndpoint } from '../support/refusing-endpoint.js';
import { FakeSecretStore } from '../support/secret-store.js';
import { useSecretsManagerServer } from '../support/secrets-manager-server.js';
import { sqsRecord } from '../support/sqs-events.js';
import {
  type BundledFunction,
  type LocalEndpoints,
  lambdaEnvironment,
  startBundledFunction,
} from './support/bundled-function.js';
import { type LocalFirehose, startLocalFirehose } from './support/local-firehose.js';
import {
  accessLogFilterCounts,
  accessLogFilterMetrics,
  type MetricIdentity,
  metricKey,
  publishedMetrics,
  watchedMetrics,
} from './support/metrics.js';
import { runtimeCalls } from './support/runtime-calls.js';
import {
  endpointSecretArn,
  HUNDRED_ENDPOINTS,
  type SynthesizedVariant,
  synthesizeVariant,
  VARIANTS,
  type Variant,
} from './support/variants.js';

// The bundled functions from cdk.out, run on this Node.js with exactly the environment their
// template gives them (references resolved to the local SQS, Secrets Manager and DynamoDB, plus
// AWS_ENDPOINT_URL_* and the variables Lambda's runtime sets), invoked with their front door's
// event; and every metric an alarm or dashboard names, printed by the running function.

/** The variants whose bundles run: each front door, endpoints, FIFO, consumer with and without idempotency, none. */
const BUNDLED_VARIANTS: ReadonlyArray<
  Variant & { readonly consumer: boolean; readonly idempotency: boolean }
> = [
  {
    name: 'http-api, single endpoint, consumer with idempotency',
    context: {},
    consumer: true,
    idempotency: true,
  },
  {
    name: 'rest-api, three endpoints (one an existing secret), FIFO, consumer without idempotency',
    context: {
      ingress: 'rest-api',
      endpoints: 'eu,us,apac',
      'secretArn.eu': endpointSecretArn('eu'),
      fifo: 'true',
      idempotency: 'false',
    },
    consumer: true,
    idempotency: false,
  },
  {
    name: 'construct: an existing queue and secret imported with their keys, consumer with idempotency',
    construct: (stack) => ({
      ...VARIANTS.queueWithKey.construct(stack),
      ...VARIANTS.secretKeyByConstruct.construct(stack),
      idempotency: true,
    }),
    consumer: true,
    idempotency: true,
  },
  {
    name: 'function-url, 100 endpoints of 32 characters, no consumer',
    context: {
      ingress: 'function-url',
      endpoints: HUNDRED_ENDPOINTS.join(','),
      consumer: 'false',
    },
    consumer: false,
    idempotency: false,
  },
];

/**
 * Which metrics each event is documented to make the receiver print. A metric an alarm or a
 * dashboard watches must be printed for one of them; outages are injected as outages (the
 * dependency's endpoint refuses connections), not simulated in the code.
 */
const RECEIVER_EVENTS = {
  'a forged call': [METRIC_NAMES.rejected, METRIC_NAMES.signatureRejected, METRIC_NAMES.received],
  'Secrets Manager down': [METRIC_NAMES.keyLoadFailure, METRIC_NAMES.received],
  'the queue down': [METRIC_NAMES.queueSendFailure, METRIC_NAMES.received],
  // And ArchiveWriteFailure where the template deploys a delivery archive (ARCHIVE_STREAM).
  'the archive down': [METRIC_NAMES.received],
} as const;

type SuiteEvent = keyof typeof RECEIVER_EVENTS | 'an event the consumer skips';

/** The booking's `data`, whose `id` each queued booking changes so that none is a copy. */
const BOOKING_DATA = bookingPayload().data as Record<string, unknown>;

/** The front door's event for a call, chosen by what the template deploys. */
function frontDoorEvent(template: CfnTemplate): (call: HttpCall) => unknown {
  if (resourcesOfType(template, 'AWS::Lambda::Url').length > 0) return functionUrlEvent;
  if (resourcesOfType(template, 'AWS::ApiGateway::RestApi').length > 0) return restApiEvent;
  if (resourcesOfType(template, 'AWS::ApiGatewayV2::Api').length > 0) return httpApiEvent;
  throw new Error('the template has no front door');
}

/** An endpoint the receiver serves: its path and the secret its key is read from. */
interface ServedEndpoint {
  readonly name?: string;
  readonly path: string;
  readonly secretArn: string;
  readonly key: string;
}

/**
 * The receiver (the function with `QUEUE_URL`), and the consumer (the one an event source mapping
 * feeds) with its queue's deployed ARN.
 */
function functionIds(template: CfnTemplate) {
  const receiver = resourcesOfType(template, 'AWS::Lambda::Function').find(
    ([, fn]) => fn.Properties?.Environment?.Variables?.QUEUE_URL !== undefined,
  )?.[0];
  const mapping = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')[0]?.[1];
  return {
    receiver: String(receiver),
    consumer: referencedId(mapping?.Properties?.FunctionName),
    consumerQueueArn:
      mapping === undefined
        ? undefined
        : String(resolveValue(template, mapping.Properties?.EventSourceArn)),
  };
}

describe('Bundled functions as deployed', () => {
  const sqs = useLocalSqs();
  const dynamodb = useLocalDynamoDb();
  // Any secret the deployment does not name is served empty: reading it fails the call.
  const secrets = useSecretsManagerServer(new FakeSecretStore(() => new Date()));
  let firehose: LocalFirehose;
  beforeAll(async () => {
    firehose = await startLocalFirehose();
  });
  afterAll(() => firehose.close());

  describe.each(BUNDLED_VARIANTS)('$name', (variant) => {
    let synthesized: SynthesizedVariant;
    let template: CfnTemplate;
    let override: PhysicalOverride;
    /** Local queue URLs in place of the URLs of imported queues (not resources of the template). */
    const importedQueues = new Map<string, string>();
    let endpoints: LocalEndpoints;
    let served: ServedEndpoint[];
    let queueUrl: string;
    let receiver: BundledFunction;
    const started: BundledFunction[] = [];
    /** What a function printed for an event, and its environment (which names its log group). */
    const printedBy = new Map<
      SuiteEvent,
      { environment: BundledFunction['environment']; output: string }
    >();
    let callsBefore = 0;
    let firehoseCallsBefore = 0;
    let tableCalls: string[] = [];

    /** Starts a bundled function with the template's environment, resolved by `local`. */
    const start = (
      functionId: string,
      local: PhysicalOverride = override,
      where: LocalEndpoints = endpoints,
      imported: ReadonlyMap<string, string> = importedQueues,
    ) => {
      const environment = lambdaEnvironment(
        template,
        functionId,
        synthesized.directory,
        local,
        where,
      );
      for (const [name, value] of Object.entries(environment)) {
        environment[name] = imported.get(value) ?? value;
      }
      const fn = startBundledFunction(template, functionId, synthesized.directory, environment);
      started.push(fn);
      return fn;
    };

    const now = () => Math.floor(Date.now() / 1000);
    const call = (endpoint: ServedEndpoint, body: string, key = endpoint.key): unknown =>
      frontDoorEvent(template)({
        ...signedCall(body, { key, timestamp: now() }),
        path: endpoint.path,
      });

    beforeAll(async () => {
      synthesized = synthesizeVariant(variant, { bundle: true });
      template = synthesized.template;
      // Local stand-ins for the stack's queues and tables, under their deployed names made unique
      // to the variant (the local servers are shared by the variants).
      const unique = randomUUID().slice(0, 8);
      const localValues = new Map<string, string>();
      for (const [id] of resourcesOfType(template, 'AWS::SQS::Queue')) {
        localValues.set(
          id,
          await sqs().createQueue(`${unique}-${deployedAttribute(template, id, 'QueueName')}`),
        );
      }
      for (const [id, table] of resourcesOfType(template, 'AWS::DynamoDB::Table')) {
        await dynamodb().client.send(
          new CreateTableCommand({
            TableName: `${unique}-${deployedAttribute(template, id)}`,
            KeySchema: table.Properties?.KeySchema,
            AttributeDefinitions: table.Properties?.AttributeDefinitions,
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        localValues.set(id, `${unique}-${deployedAttribute(template, id)}`);
      }
      override = (id, attribute) => (attribute === undefined ? localValues.get(id) : undefined);
      // From here on, what the variant's functions call.
      callsBefore = secrets().calls.length;
      firehoseCallsBefore = firehose.calls.length;
      dynamodb().resetRequests();
      endpoints = {
        SQS: sqs().endpoint,
        SECRETS_MANAGER: secrets().endpoint,
        DYNAMODB: dynamodb().endpoint,
        FIREHOSE: firehose.endpoint,
      };
      const ids = functionIds(template);
      const deployedQueueUrl = String(
        resolveValue(
          template,
          template.Resources[ids.receiver]?.Properties?.Environment?.Variables?.QUEUE_URL,
        ),
      );
      const templateQueues = resourcesOfType(template, 'AWS::SQS::Queue').map(([id]) =>
        deployedAttribute(template, id),
      );
      if (!templateQueues.includes(deployedQueueUrl)) {
        importedQueues.set(
          deployedQueueUrl,
          await sqs().createQueue(String(deployedQueueUrl.split('/').pop())),
        );
      }
      receiver = start(ids.receiver);
      queueUrl = receiver.environment.QUEUE_URL as string;
      // The secrets the receiver is configured with: SECRET_ID, or the endpoint directory (served
      // as the template writes it) and each endpoint secret it lists.
      const serve = (secretArn: string, value: string) => {
        const store = new FakeSecretStore(() => new Date());
        store.put(value);
        secrets().stores.set(secretArn, store);
      };
      const { SECRET_ID: secretId, ENDPOINT_DIRECTORY_SECRET_ID: directoryId } =
        receiver.environment;
      if (secretId !== undefined) {
        served = [{ path: '/webhook', secretArn: secretId, key: TEST_KEY }];
      } else {
        const [directory] = resourcesOfType(template, 'AWS::SecretsManager::Secret').filter(
          ([id]) => deployedAttribute(template, id) === directoryId,
        );
        const text = String(resolveValue(template, directory?.[1].Properties?.SecretString));
        serve(String(directoryId), text);
        served = Object.entries(
          (JSON.parse(text) as { secretIds: Record<string, string> }).secretIds,
        ).map(([name, secretArn]) => ({
          name,
          path: `/webhook/${name}`,
          secretArn,
          key: `${TEST_KEY}-${name}`,
        }));
      }
      for (const endpoint of served) serve(endpoint.secretArn, endpoint.key);
    });

    afterAll(async () => {
      await Promise.all(started.map((fn) => fn.close()));
    });

    it("queues each endpoint's signed booking with its attributes, as the template configures the receiver", async () => {
      // Prepare: every endpoint (each first call loads that endpoint's keys).
      const picked = served;
      const bodies = picked.map((_, index) =>
        JSON.stringify(bookingPayload({ data: { ...BOOKING_DATA, id: String(9000 + index) } })),
      );

      // Act
      const answers = [];
      for (const [index, endpoint] of picked.entries()) {
        answers.push((await receiver.invoke(call(endpoint, bodies[index] as string))).result);
      }
      const messages = await sqs().receiveAll(queueUrl, { count: picked.length });

      // Assess
      expect(answers).toEqual(
        picked.map(() => ({
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: '{"status":"queued"}',
        })),
      );
      expect(messages.map((message) => message.Body).sort()).toEqual([...bodies].sort());
      const fifo = queueUrl.endsWith('.fifo');
      for (const message of messages) {
        const endpoint = picked.find(
          (candidate) => message.Body === bodies[picked.indexOf(candidate)],
        );
        const attributes = Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            value.StringValue,
          ]),
        );
        expect(attributes).toMatchObject({
          event: 'event_booked',
          event_at: '2026-11-21T10:15:00+00:00',
          source: 'production',
          signature_timestamp: expect.stringMatching(/^\d{10}$/),
          ...(endpoint?.name === undefined ? {} : { endpoint: endpoint.name }),
        });
        expect('dedup_key' in attributes).toBe(!fifo);
        if (fifo) {
          expect(message.Attributes?.MessageGroupId).toMatch(/\S/);
          expect(message.Attributes?.MessageDeduplicationId).toMatch(/\S/);
        }
      }
      await deliverToConsumer(messages);
    });

    /** The consumer's part: each queued message as its event source mapping delivers it. */
    async function deliverToConsumer(messages: readonly Message[]): Promise<void> {
      const ids = functionIds(template);
      if (ids.consumer === undefined) {
        expect(variant.consumer).toBe(false);
        return;
      }
      const consumer = start(ids.consumer);
      const records = messages.map((message) =>
        sqsRecord({
          body: String(message.Body),
          messageId: String(message.MessageId),
          attributes: Object.fromEntries(
            Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
              name,
              String(value.StringValue),
            ]),
          ),
          queueArn: String(ids.consumerQueueArn),
          ...(message.Attributes?.MessageGroupId === undefined
            ? {}
            : {
                messageGroupId: message.Attributes.MessageGroupId,
                messageDeduplicationId: String(message.Attributes.MessageDeduplicationId),
              }),
        }),
      );

      // A record of another event type (skipped), then one that is not a booking (failed).
      const fifoGroup =
        records[0]?.attributes.MessageGroupId === undefined ? {} : { messageGroupId: 'other' };
      const queueArn = String(ids.consumerQueueArn);
      const skipped = sqsRecord({
        body: JSON.stringify(bookingPayload({ event: 'event_cancelled' })),
        attributes: { event: 'event_cancelled' },
        queueArn,
        ...fifoGroup,
        ...(fifoGroup.messageGroupId === undefined ? {} : { messageDeduplicationId: 'skipped' }),
      });
      const broken = sqsRecord({
        body: '{"event":"event_booked"}',
        attributes: { event: 'event_booked', dedup_key: 'broken' },
        queueArn,
        ...fifoGroup,
        ...(fifoGroup.messageGroupId === undefined ? {} : { messageDeduplicationId: 'broken' }),
      });

      // Act: the batch, the same batch again (a redelivery), and the other two records.
      const first = await consumer.invoke({ Records: records });
      const again = await consumer.invoke({ Records: records });
      const others = await consumer.invoke({ Records: [skipped, broken] });
      printedBy.set('an event the consumer skips', {
        environment: consumer.environment,
        output: others.output,
      });

      // The functions' own DynamoDB calls, before this test reads the table.
      tableCalls = Object.keys(dynamodb().requests());

      // Assess
      expect(first.result).toEqual({ batchItemFailures: [] });
      expect(again.result).toEqual({ batchItemFailures: [] });
      expect(others.result).toEqual({ batchItemFailures: [{ itemIdentifier: broken.messageId }] });
      const table = consumer.environment.IDEMPOTENCY_TABLE;
      expect(variant.consumer).toBe(true);
      expect(table !== undefined).toBe(variant.idempotency);
      if (table === undefined) return;
      const { Items = [] } = await dynamodb().client.send(new ScanCommand({ TableName: table }));
      const ttl = Number(consumer.environment.IDEMPOTENCY_TTL_SECONDS);
      expect(Items).toHaveLength(records.length);
      for (const item of Items) {
        expect(item.status?.S).toBe('COMPLETED');
        expect(Number(item.expiration?.N) - now()).toBeGreaterThan(ttl - 60);
        expect(Number(item.expiration?.N) - now()).toBeLessThanOrEqual(ttl + 1);
      }
    }

    it('answers an event it does not forward 200 ignored, a forged call on each endpoint 401, and queues none', async () => {
      // Prepare
      const [endpoint] = served as [ServedEndpoint];
      const depthBefore = await sqs().messageCount(queueUrl);

      // Act
      const ignored = await receiver.invoke(
        call(endpoint, JSON.stringify(bookingPayload({ event: 'event_cancelled' }))),
      );
      // A forged call on each endpoint: the rejections are counted per endpoint too.
      const forged = [];
      for (const each of served) {
        forged.push(
          await receiver.invoke(call(each, JSON.stringify(bookingPayload()), 'whsec_forged')),
        );
      }
      printedBy.set('a forged call', {
        environment: receiver.environment,
        output: forged.map(({ output }) => output).join('\n'),
      });

      // Assess
      expect(ignored.result).toMatchObject({ statusCode: 200, body: '{"status":"ignored"}' });
      expect(forged.map(({ result }) => result)).toEqual(
        served.map(() => expect.objectContaining({ statusCode: 401 })),
      );
      expect(await sqs().messageCount(queueUrl)).toBe(depthBefore);
    });

    it('answers 503 while Secrets Manager or the queue is down, but 401 to a call no key could verify, and 200 while the archive is down', async () => {
      // Prepare: fresh environments (a warm one keeps its keys), each with one dependency's
      // endpoint refusing connections.
      const refusing = await refusingEndpoint();
      const ids = functionIds(template);
      const withoutSecrets = start(ids.receiver, override, {
        ...endpoints,
        SECRETS_MANAGER: refusing,
      });
      const queueName = (id: string) => deployedAttribute(template, id, 'QueueName');
      const withoutQueue = start(
        ids.receiver,
        (id, attribute) =>
          attribute === undefined && template.Resources[id]?.Type === 'AWS::SQS::Queue'
            ? `${refusing}/000000000000/${queueName(id)}`
            : override(id, attribute),
        { ...endpoints, SQS: refusing },
        new Map([...importedQueues].map(([url]) => [url, `${refusing}/000000000000/imported`])),
      );
      const [endpoint] = served;
      const body = JSON.stringify(bookingPayload());

      // Act
      const withoutArchive = start(ids.receiver, override, { ...endpoints, FIREHOSE: refusing });
      const keysDown = await withoutSecrets.invoke(call(endpoint as ServedEndpoint, body));
      // With Secrets Manager still down: no signature header, and one that cannot be parsed.
      const unsigned = frontDoorEvent(template)({ body, path: (endpoint as ServedEndpoint).path });
      const garbled = frontDoorEvent(template)({
        body,
        path: (endpoint as ServedEndpoint).path,
        headers: { 'Service-Signature': `t=${now()},signature=not-hex` },
      });
      const neverVerifiable = [
        await withoutSecrets.invoke(unsigned),
        await withoutSecrets.invoke(garbled),
      ];
      const archiveDown = await withoutArchive.invoke(call(endpoint as ServedEndpoint, body));
      const queueDown = await withoutQueue.invoke(call(endpoint as ServedEndpoint, body));
      printedBy.set('Secrets Manager down', {
        environment: withoutSecrets.environment,
        output: keysDown.output,
      });
      printedBy.set('the queue down', {
        environment: withoutQueue.environment,
        output: queueDown.output,
      });
      printedBy.set('the archive down', {
        environment: withoutArchive.environment,
        output: archiveDown.output,
      });

      // Assess
      expect(keysDown.result).toMatchObject({ statusCode: 503 });
      expect(neverVerifiable.map(({ result }) => result)).toEqual([
        expect.objectContaining({
          statusCode: 401,
          body: '{"error":"unauthorized","reason":"missing_header"}',
        }),
        expect.objectContaining({
          statusCode: 401,
          body: '{"error":"unauthorized","reason":"malformed_header"}',
        }),
      ]);
      expect(queueDown.result).toMatchObject({ statusCode: 503 });
      // The archive never holds up an answer.
      expect(archiveDown.result).toMatchObject({ statusCode: 200, body: '{"status":"queued"}' });
    });

    it('calls Secrets Manager, DynamoDB and Firehose only as the IAM simulation derived from the template', () => {
      // Prepare
      const derived = new Set(
        runtimeCalls(template, variant.externalKeys).map(
          ({ request }) => `${request.action} ${request.resource}`,
        ),
      );
      const derivedActions = new Set([...derived].map((call) => call.split(' ')[0]));

      // Act: what the running functions sent to the local services.
      const secretCalls = secrets()
        .calls.slice(callsBefore)
        .map(({ operation, secretId }) => `secretsmanager:${operation} ${secretId}`);
      const streamName = receiver.environment[ARCHIVE_STREAM];
      const archiveCalls = firehose.calls
        .slice(firehoseCallsBefore)
        .map(
          ({ operation, streamName }) =>
            `firehose:${operation} arn:aws:firehose:${DEPLOY_REGION}:${DEPLOY_ACCOUNT}:deliverystream/${streamName}`,
        );
      const tableActions = tableCalls.map((operation) => `dynamodb:${operation}`);

      // Assess
      expect(secretCalls.length).toBeGreaterThan(0);
      expect(secretCalls.filter((call) => !derived.has(call))).toEqual([]);
      // Every answered call is archived where the template deploys an archive stream.
      expect(archiveCalls.length > 0).toBe(streamName !== undefined);
      expect(archiveCalls.filter((call) => !derived.has(call))).toEqual([]);
      expect(tableActions.length > 0).toBe(variant.idempotency);
      expect(tableActions.filter((action) => !derivedActions.has(action))).toEqual([]);
    });

    it('prints, for the events documented to produce them, every metric an alarm or dashboard watches', () => {
      // Prepare
      const service = receiver.environment.POWERTOOLS_SERVICE_NAME;
      const namespace = receiver.environment.POWERTOOLS_METRICS_NAMESPACE;
      const printed = new Map(
        [...printedBy].map(([event, { environment, output }]) => [
          event,
          new Set(publishedMetrics(template, environment, output).map(metricKey)),
        ]),
      );
      const fromFilters = accessLogFilterMetrics(template);
      // Everything the variant's functions published for every event this suite sends them.
      const everything = new Set(
        started
          .flatMap((fn) => publishedMetrics(template, fn.environment, fn.output()))
          .map(metricKey),
      );

      // Act: where each watched metric comes from.
      const unexplained = watchedMetrics(template).flatMap((metric) => {
        // AWS/* metrics are published by the services (Lambda, SQS, API Gateway) themselves.
        if (metric.namespace.startsWith('AWS/')) return [];
        // A metric filter's metric counts access log lines: the stage's line for a 429 (the
        // event it is documented for: calls turned away for capacity) must count, a 200's not.
        const filtered = metricKey({ ...metric, dimensions: {} });
        if (fromFilters.has(filtered)) {
          const counts = (status: number) =>
            accessLogFilterCounts(template, status).some(
              (count) => count.metric === filtered && count.counted,
            );
          return Object.keys(metric.dimensions).length === 0 && counts(429) && !counts(200)
            ? []
            : [`${metricKey(metric)} (access log filter)`];
        }
        if (everything.has(metricKey(metric))) return [];
        return [`${metricKey(metric)} watched by ${metric.watchedBy}`];
      });

      // Assess: each event printed what it is documented to print, and every watched metric is
      // printed by one of them.
      const consumerEvents = variant.consumer ? ['an event the consumer skips'] : [];
      expect([...printed.keys()].sort()).toEqual(
        [...Object.keys(RECEIVER_EVENTS), ...consumerEvents].sort(),
      );
      if (variant.consumer) {
        const consumerService = `${service}-consumer`;
        expect([...(printed.get('an event the consumer skips') ?? [])]).toContain(
          metricKey({
            namespace: String(namespace),
            name: SKIPPED_METRIC,
            dimensions: { service: consumerService },
          }),
        );
      }
      for (const [event, names] of Object.entries(RECEIVER_EVENTS)) {
        const expected: MetricIdentity[] = names.map((name) => ({
          namespace: String(namespace),
          name,
          dimensions: { service: String(service) },
        }));
        expect([...(printed.get(event as SuiteEvent) ?? [])]).toEqual(
          expect.arrayContaining(expected.map(metricKey)),
        );
      }
      expect(watchedMetrics(template).length).toBeGreaterThan(0);
      expect(unexplained).toEqual([]);
    });
  });
});
