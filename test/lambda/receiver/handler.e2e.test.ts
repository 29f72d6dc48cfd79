import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import {
  DescribeSecretCommand,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Environment } from '../../../lambda/contract/environment.js';
import { SETTINGS } from '../../../lambda/contract/settings.js';
import { loadConfig } from '../../../lambda/receiver/config.js';
import { createHandler, type HandlerDependencies } from '../../../lambda/receiver/handler.js';
import {
  API_GATEWAY_FLAVOURS,
  type HttpCall,
  httpApiEvent,
  lambdaContext,
  restApiEvent,
} from '../../support/api-gateway-events.js';
import {
  BOOKER,
  bookingPayload,
  phpJsonEncode,
  signedCall,
  signRawBody,
  TEST_KEY,
} from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { type LocalSqs, startLocalSqs } from '../../support/local-sqs.js';
import { filteredDataPoints } from '../../support/metric-filters.js';
import { receiverLogFilters, receiverMetricValues } from '../../support/receiver-metrics.js';
import { type FakeSecretVersion, fakeSecretVersions } from '../../support/secrets-manager.js';

const NOW = 1_795_000_000;
const HOUR = 3600;
const PRETTY_BOOKING = JSON.stringify(bookingPayload(), null, 2);
/** Every key used below: none may ever appear in output. */
const KEYS = {
  current: 'sm-key-current-7f3a',
  pending: 'sm-key-pending-91bc',
  previous: 'sm-key-previous-02de',
};

describe('Function: handler', () => {
  let sqs: LocalSqs;
  let output: CapturedOutput;
  let queueCount = 0;
  const clock = { now: NOW };

  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await sqs.close();
  });
  beforeEach(() => {
    clock.now = NOW;
    output = captureOutput();
  });
  afterEach(() => {
    output.restore();
    vi.unstubAllEnvs();
  });

  /** A handler on a fresh queue, configured like the deployed one unless `env` says otherwise. */
  async function receiver(
    options: { env?: Environment; fifo?: boolean; dependencies?: HandlerDependencies } = {},
  ) {
    queueCount += 1;
    const queueUrl = await sqs.createQueue(
      `handler-${process.pid}-${queueCount}${options.fifo ? '.fifo' : ''}`,
    );
    const env = { WEBHOOK_SECRET: TEST_KEY, QUEUE_URL: queueUrl, ...options.env };
    const handler = createHandler(loadConfig(env), {
      sqsClient: sqs.client,
      now: () => clock.now * 1000,
      ...options.dependencies,
    });
    return {
      queueUrl,
      invoke: (event: Parameters<typeof handler>[0]) => handler(event, lambdaContext()),
      messages: () => sqs.receiveAll(queueUrl),
    };
  }

  /** A Secrets Manager mock holding the given versions, and env selecting it. */
  function secretsManager(versions: FakeSecretVersion[]) {
    const client = new SecretsManagerClient({ region: 'eu-west-1' });
    const mock = mockClient(client);
    fakeSecretVersions(mock, versions);
    return {
      mock,
      describeCalls: () => mock.commandCalls(DescribeSecretCommand).length,
      options: {
        env: { WEBHOOK_SECRET: undefined, SECRET_ID: 'webhook/signing-key' },
        dependencies: { secretsManagerClient: client },
      },
    };
  }

  const version = (id: string, value: string, ageSeconds: number, stages: string[]) => ({
    versionId: id,
    value,
    createdAt: new Date((NOW - ageSeconds) * 1000),
    stages,
  });

  describe.each(API_GATEWAY_FLAVOURS)('with $name events', ({ event }) => {
    it('queues a signed booking and the consumer receives the body exactly as sent', async () => {
      // Prepare
      const { invoke, messages } = await receiver();

      // Act
      const response = await invoke(event(signedCall(PRETTY_BOOKING, { timestamp: NOW })));

      // Assess
      expect(response).toEqual({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"status":"queued"}',
      });
      const received = await messages();
      expect(received.map((message) => message.Body)).toEqual([PRETTY_BOOKING]);
      expect(received[0]?.MessageAttributes?.event?.StringValue).toBe('event_booked');
    });

    it('queues a base64-encoded PHP-escaped body byte for byte', async () => {
      // Prepare
      const { invoke, messages } = await receiver();
      const body = phpJsonEncode(bookingPayload());

      // Act
      const response = await invoke(event(signedCall(body, { timestamp: NOW, base64: true })));

      // Assess
      expect(response.statusCode).toBe(200);
      expect((await messages())[0]?.Body).toBe(body);
    });

    it('finds the signature header whatever its spelling', async () => {
      // Prepare
      const { invoke } = await receiver();
      const call = signedCall(PRETTY_BOOKING, { timestamp: NOW });
      const header = call.headers?.['Service-Signature'] ?? '';

      // Act
      const response = await invoke(
        event({ body: PRETTY_BOOKING, headers: { 'SERVICE-SIGNATURE': header } }),
      );

      // Assess
      expect(response.statusCode).toBe(200);
    });

    const wrongKey = signedCall(PRETTY_BOOKING, { timestamp: NOW, key: 'not-the-key' });
    it.each<[string, HttpCall, number, Record<string, string>]>([
      [
        'a GET',
        { method: 'GET' },
        405,
        { error: 'method_not_allowed', reason: 'method_not_allowed' },
      ],
      [
        'a body over MAX_BODY_BYTES',
        signedCall(JSON.stringify(bookingPayload({ pad: 'x'.repeat(1024) })), { timestamp: NOW }),
        413,
        { error: 'payload_too_large', reason: 'payload_too_large' },
      ],
      [
        'an unsigned body that is not JSON',
        { ...signedCall('{}', { timestamp: NOW }), body: 'event=event_booked' },
        401,
        { error: 'unauthorized', reason: 'signature_mismatch' },
      ],
      [
        'a signed body that is not JSON',
        {
          body: 'event=event_booked',
          headers: { 'Service-Signature': signRawBody('event=event_booked', TEST_KEY, NOW) },
        },
        400,
        { error: 'bad_request', reason: 'body_not_json' },
      ],
      [
        'signed JSON that is not an object with an event',
        signedCall('[{"event":"event_booked"}]', { timestamp: NOW }),
        400,
        { error: 'bad_request', reason: 'invalid_payload' },
      ],
      [
        'a missing Service-Signature header',
        { body: PRETTY_BOOKING },
        401,
        { error: 'unauthorized', reason: 'missing_header' },
      ],
      [
        'a malformed header',
        { body: PRETTY_BOOKING, headers: { 'Service-Signature': 'signature=abc' } },
        401,
        { error: 'unauthorized', reason: 'malformed_header' },
      ],
      [
        'a timestamp 301 s old',
        signedCall(PRETTY_BOOKING, { timestamp: NOW - 301 }),
        401,
        { error: 'unauthorized', reason: 'timestamp_too_old' },
      ],
      [
        'a timestamp 301 s ahead',
        signedCall(PRETTY_BOOKING, { timestamp: NOW + 301 }),
        401,
        { error: 'unauthorized', reason: 'timestamp_in_future' },
      ],
      [
        'a signature made with another key',
        wrongKey,
        401,
        { error: 'unauthorized', reason: 'signature_mismatch' },
      ],
      [
        'a verified event that is not forwarded',
        signedCall(JSON.stringify(bookingPayload({ event: 'event_cancelled' })), {
          timestamp: NOW,
        }),
        200,
        { status: 'ignored' },
      ],
    ])('answers %s with %i and queues nothing', async (_, call, status, body) => {
      // Prepare
      const { invoke, messages } = await receiver({ env: { MAX_BODY_BYTES: '1024' } });

      // Act
      const response = await invoke(event(call));

      // Assess
      expect(response.statusCode).toBe(status);
      expect(JSON.parse(response.body)).toEqual(body);
      expect(await messages()).toEqual([]);
    });

    it('answers 401 to a body API Gateway marked as base64 that is not: its bytes cannot verify', async () => {
      // Prepare
      const { invoke } = await receiver();
      const call = event(signedCall(PRETTY_BOOKING, { timestamp: NOW }));

      // Act
      const response = await invoke({ ...call, body: PRETTY_BOOKING, isBase64Encoded: true });

      // Assess
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toEqual({
        error: 'unauthorized',
        reason: 'signature_mismatch',
      });
    });
  });

  describe('on a FIFO queue', () => {
    it('stores a booking once when the sender retries it with a new signature and layout', async () => {
      // Prepare
      const { invoke, messages } = await receiver({ fifo: true });
      const compact = JSON.stringify(bookingPayload());

      // Act
      const first = await invoke(restApiEvent(signedCall(compact, { timestamp: NOW })));
      clock.now += 40;
      const retry = await invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW + 40 })));

      // Assess
      expect([first.statusCode, retry.statusCode]).toEqual([200, 200]);
      const received = await messages();
      expect(received.map((message) => message.Body)).toEqual([compact]);
      expect(received[0]?.Attributes?.MessageGroupId).toBe('918273');
    });
  });

  describe('when SQS is unreachable', () => {
    it('answers 503 with Retry-After and never 2xx, using the default SQS client settings', async () => {
      // Prepare: a port that refuses connections, reached through AWS_ENDPOINT_URL_SQS
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      vi.stubEnv('AWS_ENDPOINT_URL_SQS', `http://127.0.0.1:${port}`);
      vi.stubEnv('AWS_REGION', 'us-east-1');
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
      const handler = createHandler(
        loadConfig({
          WEBHOOK_SECRET: TEST_KEY,
          QUEUE_URL: `http://127.0.0.1:${port}/123456789012/webhook-events`,
        }),
        { now: () => clock.now * 1000 },
      );

      // Act
      const responses = await Promise.all(
        [restApiEvent, httpApiEvent].map((event) =>
          handler(event(signedCall(PRETTY_BOOKING, { timestamp: NOW })), lambdaContext()),
        ),
      );

      // Assess
      for (const response of responses) {
        expect(response.statusCode).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(JSON.parse(response.body)).toEqual({
          error: 'service_unavailable',
          reason: 'queue_unavailable',
        });
      }
      expect(
        receiverMetricValues(output.text()).filter(({ name }) => name === 'QueueSendFailure'),
      ).toHaveLength(2);
    });
  });

  describe('with keys from Secrets Manager', () => {
    it('accepts a call signed with the AWSPENDING key staged before the sender switches', async () => {
      // Prepare
      const secrets = secretsManager([
        version('v1', KEYS.current, 90 * 24 * HOUR, ['AWSCURRENT']),
        version('v2', KEYS.pending, HOUR, ['AWSPENDING']),
      ]);
      const { invoke } = await receiver(secrets.options);

      // Act
      const response = await invoke(
        httpApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW, key: KEYS.pending })),
      );

      // Assess
      expect(response.statusCode).toBe(200);
      expect(output.logs().at(-1)).toMatchObject({ outcome: 'queued', key_stage: 'AWSPENDING' });
    });

    it.each([
      ['accepts', 23 * HOUR, 200],
      ['rejects', 25 * HOUR, 401],
    ])(
      '%s the AWSPREVIOUS key when AWSCURRENT is %i s old (grace 24 h)',
      async (_, age, status) => {
        // Prepare
        const secrets = secretsManager([
          version('v2', KEYS.current, age, ['AWSCURRENT']),
          version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSPREVIOUS']),
        ]);
        const { invoke } = await receiver(secrets.options);

        // Act
        const response = await invoke(
          restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW, key: KEYS.previous })),
        );

        // Assess
        expect(response.statusCode).toBe(status);
      },
    );

    it('rejects the old key at the next reload once the AWSPREVIOUS label is removed', async () => {
      // Prepare
      const versions = [
        version('v2', KEYS.current, HOUR, ['AWSCURRENT']),
        version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSPREVIOUS']),
      ];
      const secrets = secretsManager(versions);
      const { invoke } = await receiver({
        ...secrets,
        env: { ...secrets.options.env, SECRET_CACHE_SECONDS: '60' },
        dependencies: secrets.options.dependencies,
      });
      const withOldKey = () =>
        invoke(
          restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now, key: KEYS.previous })),
        );
      const before = await withOldKey();

      // Act
      fakeSecretVersions(secrets.mock, [
        versions[0] as FakeSecretVersion,
        { ...versions[1], stages: [] } as FakeSecretVersion,
      ]);
      clock.now += 61;
      const after = await withOldKey();

      // Assess
      expect([before.statusCode, after.statusCode]).toEqual([200, 401]);
    });

    it('serves keys from the cache for SECRET_CACHE_SECONDS, then reloads', async () => {
      // Prepare
      const secrets = secretsManager([version('v1', KEYS.current, HOUR, ['AWSCURRENT'])]);
      const { invoke } = await receiver({
        env: { ...secrets.options.env, SECRET_CACHE_SECONDS: '60' },
        dependencies: secrets.options.dependencies,
      });
      const call = () =>
        invoke(
          restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now, key: KEYS.current })),
        );

      // Act
      await call();
      clock.now += 59;
      await call();
      const loadsWithinTtl = secrets.describeCalls();
      clock.now += 2;
      await call();

      // Assess
      expect(loadsWithinTtl).toBe(1);
      expect(secrets.describeCalls()).toBe(2);
    });

    it('picks up a rotation on the first mismatch after 30 s instead of waiting for the cache', async () => {
      // Prepare
      const secrets = secretsManager([
        version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSCURRENT']),
      ]);
      const { invoke, messages } = await receiver(secrets.options);
      await invoke(
        restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW, key: KEYS.previous })),
      );
      fakeSecretVersions(secrets.mock, [
        version('v2', KEYS.current, 0, ['AWSCURRENT']),
        version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSPREVIOUS']),
      ]);
      clock.now += 31;

      // Act
      const response = await invoke(
        restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now, key: KEYS.current })),
      );

      // Assess
      expect(response.statusCode).toBe(200);
      // The usual stage, AWSCURRENT, goes without saying: only the reload is logged.
      expect(output.logs().at(-1)).toMatchObject({ outcome: 'queued', keys_refreshed: true });
      expect(output.logs().at(-1)).not.toHaveProperty('key_stage');
      expect(await messages()).toHaveLength(2);
    });

    it('calls Secrets Manager at most once per 30 s under a flood of forged calls', async () => {
      // Prepare
      const secrets = secretsManager([version('v1', KEYS.current, HOUR, ['AWSCURRENT'])]);
      const { invoke } = await receiver(secrets.options);
      const statuses: number[] = [];

      // Act: 100 forged calls over 60 s
      for (let call = 0; call < 100; call += 1) {
        const forged = signedCall(PRETTY_BOOKING, {
          timestamp: Math.floor(clock.now),
          key: 'forged',
        });
        statuses.push((await invoke(restApiEvent(forged))).statusCode);
        clock.now += 0.6;
      }

      // Assess: the cold-start load, then one reload at 30 s
      expect(new Set(statuses)).toEqual(new Set([401]));
      expect(secrets.describeCalls()).toBe(2);
    });

    it('answers a signed call 503 with Retry-After when the keys cannot be loaded, and a call whose header cannot be read 401', async () => {
      // Prepare
      const secrets = secretsManager([]);
      secrets.mock.on(DescribeSecretCommand).rejects(
        new SecretsManagerServiceException({
          name: 'AccessDeniedException',
          $fault: 'client',
          $metadata: {},
          message: 'User is not authorized to perform: secretsmanager:DescribeSecret',
        }),
      );
      const { invoke, messages } = await receiver(secrets.options);

      // Act
      const signed = await invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW })));
      const unsigned = await invoke(restApiEvent({ body: PRETTY_BOOKING }));
      const garbled = await invoke(
        restApiEvent({ body: PRETTY_BOOKING, headers: { 'Service-Signature': 'sha256=00' } }),
      );

      // Assess: only the signed call may verify once the keys load; the others never can.
      expect(signed.statusCode).toBe(503);
      expect(signed.headers['retry-after']).toBe('30');
      expect(JSON.parse(signed.body)).toEqual({
        error: 'service_unavailable',
        reason: 'keys_unavailable',
      });
      expect([unsigned, garbled].map(({ statusCode, body }) => [statusCode, body])).toEqual([
        [401, '{"error":"unauthorized","reason":"missing_header"}'],
        [401, '{"error":"unauthorized","reason":"malformed_header"}'],
      ]);
      expect(await messages()).toEqual([]);
      expect(
        receiverMetricValues(output.text()).filter(({ name }) => name === 'KeyLoadFailure'),
      ).toHaveLength(1);
    });

    it('keeps accepting calls with the loaded keys while Secrets Manager fails', async () => {
      // Prepare
      const secrets = secretsManager([version('v1', KEYS.current, HOUR, ['AWSCURRENT'])]);
      const { invoke } = await receiver(secrets.options);
      const call = () =>
        invoke(
          restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now, key: KEYS.current })),
        );
      await call();
      secrets.mock.on(DescribeSecretCommand).rejects(new Error('ThrottlingException'));
      clock.now += SETTINGS.secretCacheSeconds.default + 1;

      // Act
      const response = await call();

      // Assess
      expect(response.statusCode).toBe(200);
      expect(
        receiverMetricValues(output.text()).filter(({ name }) => name === 'KeyLoadFailure'),
      ).toHaveLength(1);
      expect(output.logs()).toContainEqual(
        expect.objectContaining({ level: 'ERROR', using_stale_keys: true }),
      );
    });

    describe('when the cached keys expired and Secrets Manager fails', () => {
      /** A receiver that loaded `KEYS.previous`, whose cache then expired during an outage. */
      async function receiverInOutage() {
        const secrets = secretsManager([
          version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSCURRENT']),
        ]);
        const handler = await receiver(secrets.options);
        await handler.invoke(
          restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW, key: KEYS.previous })),
        );
        secrets.mock.on(DescribeSecretCommand).rejects(new Error('ThrottlingException'));
        clock.now += SETTINGS.secretCacheSeconds.default + 1;
        const call = (key: string) =>
          handler.invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now, key })));
        return { secrets, call, messages: handler.messages };
      }

      it('answers 503 with Retry-After, not 401, to a call signed with a key rotated in since the last load', async () => {
        // Prepare
        const { call, messages } = await receiverInOutage();

        // Act
        const rotated = await call(KEYS.current);

        // Assess
        expect(rotated.statusCode).toBe(503);
        expect(rotated.headers['retry-after']).toBe('30');
        expect(JSON.parse(rotated.body)).toEqual({
          error: 'service_unavailable',
          reason: 'keys_unavailable',
        });
        expect(await messages()).toHaveLength(1);
        expect(output.logs().at(-1)).toMatchObject({
          level: 'ERROR',
          outcome: 'unavailable',
          reason: 'keys_unavailable',
          timestamp_age_seconds: 0,
        });
        const names = receiverMetricValues(output.text()).map(({ name }) => name);
        expect(names.filter((name) => name === 'KeyLoadFailure')).toHaveLength(1);
        expect(names).not.toContain('SignatureRejected');
      });

      it('queues a call signed with the old key, which stays in use', async () => {
        // Prepare
        const { call, messages } = await receiverInOutage();

        // Act
        const old = await call(KEYS.previous);

        // Assess
        expect(old.statusCode).toBe(200);
        expect(JSON.parse(old.body)).toEqual({ status: 'queued' });
        expect(await messages()).toHaveLength(2);
      });

      it('accepts the rotated key and answers 401 to a wrong key once the keys load again', async () => {
        // Prepare
        const { secrets, call } = await receiverInOutage();
        await call(KEYS.current);
        fakeSecretVersions(secrets.mock, [
          version('v2', KEYS.current, 0, ['AWSCURRENT']),
          version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSPREVIOUS']),
        ]);
        clock.now += 30;

        // Act
        const rotated = await call(KEYS.current);
        const forged = await call('forged');

        // Assess
        expect(rotated.statusCode).toBe(200);
        expect(forged.statusCode).toBe(401);
        expect(JSON.parse(forged.body)).toMatchObject({ reason: 'signature_mismatch' });
      });
    });
  });

  describe('logs and metrics', () => {
    it('logs one compact line per queued call: request id, outcome, event type, timestamp age and dedup key', async () => {
      // Prepare
      const { invoke, messages } = await receiver();
      const event = restApiEvent({
        ...signedCall(PRETTY_BOOKING, { timestamp: NOW - 12 }),
        requestId: 'apigw-req-1',
      });

      // Act
      await invoke(event);

      // Assess: only the decision's fields; CloudWatch stamps the time, the log group names the
      // function, the outcome says the message and the 200, the usual key matched (here the
      // local run's only one) and the body matched as sent (key_stage and signed_form are
      // logged only when they are not the usual ones).
      const [message] = await messages();
      expect(output.logs()).toEqual([
        {
          level: 'INFO',
          service: 'webhook-receiver',
          outcome: 'queued',
          api_request_id: 'apigw-req-1',
          event_type: 'event_booked',
          timestamp_age_seconds: 12,
          dedup_key: message?.MessageAttributes?.dedup_key?.StringValue,
        },
      ]);
    });

    it('logs a rejected call with its status, reason and timestamp age at WARN', async () => {
      // Prepare
      const { invoke } = await receiver();
      const call = signedCall(PRETTY_BOOKING, { timestamp: NOW - 400 });

      // Act
      await invoke(restApiEvent({ ...call, requestId: 'apigw-req-2' }));

      // Assess
      expect(output.logs()).toEqual([
        {
          level: 'WARN',
          message: 'Webhook rejected',
          service: 'webhook-receiver',
          outcome: 'rejected',
          status: 401,
          reason: 'timestamp_too_old',
          api_request_id: 'apigw-req-2',
          timestamp_age_seconds: 400,
        },
      ]);
    });

    it('writes no line for queued calls when POWERTOOLS_LOG_LEVEL is WARN, and still one per rejection', async () => {
      // Prepare
      vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
      const { invoke, messages } = await receiver();

      // Act
      await invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW })));
      await invoke(restApiEvent({ body: PRETTY_BOOKING }));

      // Assess
      expect(await messages()).toHaveLength(1);
      expect(output.logs()).toEqual([
        expect.objectContaining({ level: 'WARN', reason: 'missing_header' }),
      ]);
    });

    it('counts a forwarded call in namespace ServiceWebhookReceiver with the service dimension, from its line alone', async () => {
      // Prepare
      const { invoke } = await receiver();

      // Act
      await invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW })));

      // Assess: the stack's metric filters count the decision line; no EMF blob is written.
      const service = { service: 'webhook-receiver' };
      const namespace = 'ServiceWebhookReceiver';
      expect(filteredDataPoints(receiverLogFilters(), output.text().split('\n'))).toEqual([
        { namespace, name: 'WebhookReceived', value: 1, dimensions: service },
        { namespace, name: 'WebhookForwarded', value: 1, dimensions: service },
        { namespace, name: 'WebhookVerified', value: 1, dimensions: service },
      ]);
      expect(output.metrics()).toEqual([]);
    });

    it('counts a 401 as WebhookRejected, SignatureRejected and WebhookRejected by reason', async () => {
      // Prepare
      const { invoke } = await receiver();

      // Act
      await invoke(restApiEvent({ body: PRETTY_BOOKING }));

      // Assess
      expect(receiverMetricValues(output.text())).toEqual(
        expect.arrayContaining([
          { name: 'WebhookReceived', value: 1, dimensions: { service: 'webhook-receiver' } },
          { name: 'WebhookRejected', value: 1, dimensions: { service: 'webhook-receiver' } },
          { name: 'SignatureRejected', value: 1, dimensions: { service: 'webhook-receiver' } },
          {
            name: 'WebhookRejected',
            value: 1,
            dimensions: { service: 'webhook-receiver', reason: 'missing_header' },
          },
        ]),
      );
    });

    it('counts each rejection under its own reason alone, one after the other', async () => {
      // Prepare
      const { invoke } = await receiver();

      // Act
      await invoke(restApiEvent({ body: PRETTY_BOOKING }));
      await invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: NOW - 3600 })));
      await invoke(restApiEvent({ body: PRETTY_BOOKING }));

      // Assess
      const byReason = receiverMetricValues(output.text())
        .filter(({ dimensions }) => 'reason' in dimensions)
        .map(({ name, value, dimensions }) => ({ name, value, dimensions }));
      const service = { service: 'webhook-receiver' };
      expect(byReason).toEqual([
        { name: 'WebhookRejected', value: 1, dimensions: { ...service, reason: 'missing_header' } },
        {
          name: 'WebhookRejected',
          value: 1,
          dimensions: { ...service, reason: 'timestamp_too_old' },
        },
        { name: 'WebhookRejected', value: 1, dimensions: { ...service, reason: 'missing_header' } },
      ]);
    });

    it('counts every call in the minute it was answered, however close together', async () => {
      // Prepare
      const { invoke } = await receiver();
      const queue = () =>
        invoke(restApiEvent(signedCall(PRETTY_BOOKING, { timestamp: clock.now })));

      // Act: four calls within a minute, then a rejection
      for (const seconds of [0, 10, 20, 30]) {
        clock.now = NOW + seconds;
        await queue();
      }
      const queued = receiverMetricValues(output.text());
      await invoke(restApiEvent({ body: PRETTY_BOOKING }));
      const all = receiverMetricValues(output.text());

      // Assess: one data point per call and metric, each published with its call's line.
      const service = { service: 'webhook-receiver' };
      const count = (values: typeof all, name: string) =>
        values.filter((value) => value.name === name && value.dimensions.reason === undefined)
          .length;
      expect(count(queued, 'WebhookReceived')).toBe(4);
      expect(count(queued, 'WebhookForwarded')).toBe(4);
      expect(count(queued, 'WebhookVerified')).toBe(4);
      expect(all.slice(queued.length)).toEqual([
        { name: 'WebhookReceived', value: 1, dimensions: service },
        { name: 'WebhookRejected', value: 1, dimensions: service },
        { name: 'WebhookRejected', value: 1, dimensions: { ...service, reason: 'missing_header' } },
        { name: 'SignatureRejected', value: 1, dimensions: service },
      ]);
    });

    it('counts an ignored event as WebhookIgnored and WebhookVerified', async () => {
      // Prepare
      const { invoke } = await receiver();
      const body = JSON.stringify(bookingPayload({ event: 'event_cancelled' }));

      // Act
      await invoke(restApiEvent(signedCall(body, { timestamp: NOW })));

      // Assess
      expect(receiverMetricValues(output.text()).map(({ name }) => name)).toEqual([
        'WebhookReceived',
        'WebhookIgnored',
        'WebhookVerified',
      ]);
    });

    it('never writes a key, the payload, the name or the e-mail, whatever the outcome', async () => {
      // Prepare
      const secrets = secretsManager([
        version('v2', KEYS.current, HOUR, ['AWSCURRENT']),
        version('v3', KEYS.pending, HOUR, ['AWSPENDING']),
        version('v1', KEYS.previous, 90 * 24 * HOUR, ['AWSPREVIOUS']),
      ]);
      const { invoke } = await receiver(secrets.options);
      const badPayload = JSON.stringify({ user: BOOKER });
      const signed = (body: string, key: string) => signedCall(body, { timestamp: NOW, key });

      // Act
      for (const call of [
        signed(PRETTY_BOOKING, KEYS.current),
        signed(PRETTY_BOOKING, KEYS.pending),
        signed(PRETTY_BOOKING, KEYS.previous),
        signed(PRETTY_BOOKING, 'forged'),
        signed(badPayload, KEYS.current),
        {
          body: PRETTY_BOOKING,
          headers: { 'Service-Signature': `t=${NOW},signature=${'0'.repeat(64)}` },
        },
      ]) {
        await invoke(restApiEvent(call));
      }

      // Assess
      const written = output.text();
      expect(output.logs()).toHaveLength(6);
      for (const secret of [
        ...Object.values(KEYS),
        BOOKER.name,
        BOOKER.email,
        PRETTY_BOOKING,
        '918273',
      ]) {
        expect(written).not.toContain(secret);
      }
    });
  });
});
