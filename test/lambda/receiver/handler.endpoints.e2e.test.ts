import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_SETTINGS } from '../../../lambda/receiver/handler.js';
import { FRONT_DOORS, type HttpCall } from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { useLocalSqs } from '../../support/local-sqs.js';
import { readWrittenLines, withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { metricSum, receiverMetricValues } from '../../support/receiver-metrics.js';
import { FakeSecretStore } from '../../support/secret-store.js';
import { useSecretsManagerServer } from '../../support/secrets-manager-server.js';

const BOOKING = JSON.stringify(bookingPayload());
/** Every key used below, one per endpoint: none may ever appear in output. */
const KEYS = { eu: 'eu-key-3f8a1c', euRotated: 'eu-key-rotated-77d2', us: 'us-key-b41e09' };
const SECRET_IDS = { eu: 'webhook/eu', us: 'webhook/us' } as const;
const ENDPOINTS_ENV = { ENDPOINT_SECRET_IDS: JSON.stringify(SECRET_IDS) };
const START_MS = 1_795_000_000_000;

describe.each(FRONT_DOORS)(
  'Function: handler with several endpoints, one key each ($name)',
  ({ event }) => {
    withoutSdkNodeVersionWarning();
    const sqs = useLocalSqs();
    let output: CapturedOutput;
    const clock = { ms: START_MS };
    const secretsManager = useSecretsManagerServer(new FakeSecretStore(() => new Date(clock.ms)));

    afterEach(() => {
      output.restore();
    });
    beforeEach(() => {
      output = captureOutput();
      clock.ms = START_MS;
      const server = secretsManager();
      server.stores.clear();
      for (const [endpoint, secretId] of Object.entries(SECRET_IDS)) {
        const store = new FakeSecretStore(() => new Date(clock.ms));
        store.put(KEYS[endpoint as keyof typeof SECRET_IDS]);
        server.stores.set(secretId, store);
      }
      server.behaviour = { kind: 'answer', delayMs: 0 };
      server.behaviourBySecret.clear();
      server.requests.clear();
      server.requestsBySecret.clear();
    });

    /** A cold receiver serving `eu` and `us`, its Secrets Manager client the deployed one's. */
    const coldReceiver = (options: { fifo?: boolean; env?: Record<string, string> } = {}) =>
      receiverOnNewQueue(
        sqs(),
        options.env ?? ENDPOINTS_ENV,
        { secretsManagerClient: secretsManager().client(CLIENT_SETTINGS), now: () => clock.ms },
        { fifo: options.fifo ?? false },
      );

    /** `body` signed now with `key`, sent to `path`, as this front door delivers it. */
    const call = (path: string, key: string, body = BOOKING) =>
      event({
        ...signedCall(body, { key, timestamp: Math.floor(clock.ms / 1000) }),
        path,
      } satisfies HttpCall);

    const secretRequests = (secretId: string) =>
      secretsManager().requestsBySecret.get(secretId) ?? 0;

    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

    /** Output is well-formed and free of keys. */
    const expectCleanOutput = () => {
      expect(readWrittenLines(output.text()).problems).toEqual([]);
      for (const key of Object.values(KEYS)) expect(output.text()).not.toContain(key);
    };

    it("queues a call to each endpoint signed with that endpoint's key, loading each key on its endpoint's first call", async () => {
      // Prepare
      const { invoke, queuedMessages } = await coldReceiver();

      // Act
      const eu = await invoke(call('/webhook/eu', KEYS.eu));
      const usRequestsAfterEu = secretRequests(SECRET_IDS.us);
      const us = await invoke(call('/webhook/us', KEYS.us));

      // Assess
      expect([eu.statusCode, us.statusCode]).toEqual([200, 200]);
      expect(JSON.parse(eu.body)).toEqual({ status: 'queued' });
      expect(usRequestsAfterEu).toBe(0);
      expect(secretRequests(SECRET_IDS.us)).toBeGreaterThan(0);
      const messages = await queuedMessages();
      expect(messages.map((message) => message.Body)).toEqual([BOOKING, BOOKING]);
      expect(messages.map((message) => message.MessageAttributes?.endpoint)).toEqual([
        { DataType: 'String', StringValue: 'eu' },
        { DataType: 'String', StringValue: 'us' },
      ]);
      expect(messages.map((message) => message.MessageAttributes?.dedup_key?.StringValue)).toEqual([
        `eu:${sha256(BOOKING)}`,
        `us:${sha256(BOOKING)}`,
      ]);
      expect(output.logs()).toContainEqual(
        expect.objectContaining({ outcome: 'queued', endpoint: 'eu' }),
      );
      expectCleanOutput();
    });

    it.each([
      ['eu', 'us'],
      ['us', 'eu'],
    ] as const)(
      "rejects a call signed with %s's key on %s's path with 401 signature_mismatch",
      async (signer, path) => {
        // Prepare
        const { invoke, queuedBodies } = await coldReceiver();

        // Act
        const response = await invoke(call(`/webhook/${path}`, KEYS[signer]));

        // Assess
        expect(response.statusCode).toBe(401);
        expect(JSON.parse(response.body)).toEqual({
          error: 'unauthorized',
          reason: 'signature_mismatch',
        });
        expect(await queuedBodies()).toEqual([]);
        expect(output.logs()).toContainEqual(
          expect.objectContaining({ reason: 'signature_mismatch', endpoint: path }),
        );
        expectCleanOutput();
      },
    );

    it.each([
      ['an endpoint that is not configured', '/webhook/asia'],
      ['no endpoint name', '/webhook'],
      ['a trailing slash', '/webhook/eu/'],
      ['an upper-case name', '/webhook/EU'],
      ['another path', '/hooks/eu'],
    ])('answers 404 not_found without a Secrets Manager call for %s', async (_, path) => {
      // Prepare
      const { invoke, queuedBodies } = await coldReceiver();

      // Act
      const response = await invoke(call(path, KEYS.eu));

      // Assess
      expect(response.statusCode).toBe(404);
      expect(response.body).toBe('{"error":"not_found"}');
      expect(response.headers['content-type']).toBe('application/json');
      expect(secretsManager().requestsBySecret.size).toBe(0);
      expect(await queuedBodies()).toEqual([]);
      expect(output.logs()).toContainEqual(
        expect.objectContaining({ status: 404, reason: 'unknown_endpoint', path }),
      );
      expectCleanOutput();
    });

    it('counts each endpoint under an endpoint dimension beside the unchanged totals', async () => {
      // Prepare
      const { invoke } = await coldReceiver();
      const service = { service: 'webhook-receiver' };

      // Act: eu queues, then us is forged, then eu and us queue within the minute
      await invoke(call('/webhook/eu', KEYS.eu));
      clock.ms += 1000;
      await invoke(call('/webhook/us', 'forged-key'));
      clock.ms += 1000;
      await invoke(call('/webhook/eu', KEYS.eu, JSON.stringify(bookingPayload({ id: 2 }))));
      clock.ms += 1000;
      await invoke(call('/webhook/us', KEYS.us));

      // Assess: every call counted with its own line, per endpoint and in the totals
      const values = receiverMetricValues(output.text());
      const perEndpoint = values.filter(({ dimensions }) => 'endpoint' in dimensions);
      expect(perEndpoint).toEqual([
        { name: 'WebhookVerified', value: 1, dimensions: { ...service, endpoint: 'eu' } },
        { name: 'WebhookRejected', value: 1, dimensions: { ...service, endpoint: 'us' } },
        { name: 'WebhookVerified', value: 1, dimensions: { ...service, endpoint: 'eu' } },
        { name: 'WebhookVerified', value: 1, dimensions: { ...service, endpoint: 'us' } },
      ]);
      expect(metricSum(values, 'WebhookForwarded', service)).toBe(3);
      expect(metricSum(values, 'WebhookVerified', service)).toBe(3);
      expect(metricSum(values, 'WebhookRejected', service)).toBe(1);
      expectCleanOutput();
    });

    it('serves an endpoint whose path carries a stage or base path before /webhook', async () => {
      // Prepare: an HTTP API stage other than $default puts its name first in rawPath; a REST
      // custom domain's base path comes first in path
      const { invoke, queuedBodies } = await coldReceiver();

      // Act
      const response = await invoke(call('/prod/webhook/us', KEYS.us));

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
    });

    it('serves the other endpoint unchanged while one endpoint rotates its key', async () => {
      // Prepare: both endpoints have served, so both key rings are loaded
      const { invoke } = await coldReceiver();
      await invoke(call('/webhook/eu', KEYS.eu));
      await invoke(call('/webhook/us', KEYS.us));
      const usRequestsBefore = secretRequests(SECRET_IDS.us);
      secretsManager().stores.get(SECRET_IDS.eu)?.put(KEYS.euRotated);
      clock.ms += 31_000;

      // Act
      const responses = {
        euNewKey: await invoke(call('/webhook/eu', KEYS.euRotated)),
        euOldKey: await invoke(call('/webhook/eu', KEYS.eu)),
        us: await invoke(call('/webhook/us', KEYS.us)),
        usWithEuKey: await invoke(call('/webhook/us', KEYS.euRotated)),
      };

      // Assess
      expect(responses.euNewKey.statusCode).toBe(200);
      expect(responses.euOldKey.statusCode).toBe(200);
      expect(responses.us.statusCode).toBe(200);
      expect(JSON.parse(responses.usWithEuKey.body)).toMatchObject({
        reason: 'signature_mismatch',
      });
      expect(output.logs()).toEqual(
        expect.arrayContaining([
          // key_stage is logged only when a key other than AWSCURRENT matched.
          expect.objectContaining({ endpoint: 'eu', keys_refreshed: true, outcome: 'queued' }),
          expect.objectContaining({ endpoint: 'eu', key_stage: 'AWSPREVIOUS' }),
          expect.objectContaining({ endpoint: 'us', outcome: 'queued' }),
        ]),
      );
      // us was served from its own cache: only the forged call's early reload asked for its secret.
      expect(secretRequests(SECRET_IDS.us) - usRequestsBefore).toBe(2);
      expectCleanOutput();
    });

    it('answers 503 on the endpoint whose secret fails and 200 on the other', async () => {
      // Prepare: the function's role may not read us's secret
      const { invoke, queuedMessages } = await coldReceiver();
      secretsManager().behaviourBySecret.set(SECRET_IDS.us, {
        kind: 'error',
        type: 'AccessDeniedException',
        status: 400,
      });

      // Act
      const responses = {
        us: await invoke(call('/webhook/us', KEYS.us)),
        eu: await invoke(call('/webhook/eu', KEYS.eu)),
      };

      // Assess
      expect(responses.us.statusCode).toBe(503);
      expect(JSON.parse(responses.us.body)).toMatchObject({ reason: 'keys_unavailable' });
      expect(JSON.parse(responses.eu.body)).toEqual({ status: 'queued' });
      const messages = await queuedMessages();
      expect(messages.map((message) => message.MessageAttributes?.endpoint?.StringValue)).toEqual([
        'eu',
      ]);
      expect(output.logs()).toContainEqual(
        expect.objectContaining({
          level: 'ERROR',
          message: 'Loading the signing keys failed; answering 503',
          endpoint: 'us',
        }),
      );
      expectCleanOutput();
    });

    it("keeps two endpoints' equal bookings apart on a FIFO queue, each in a group of its own", async () => {
      // Prepare
      const { invoke, queuedMessages } = await coldReceiver({ fifo: true });

      // Act
      const responses = [
        await invoke(call('/webhook/eu', KEYS.eu)),
        await invoke(call('/webhook/us', KEYS.us)),
        // A sender's retry to eu, within SQS's 5-minute deduplication window.
        await invoke(call('/webhook/eu', KEYS.eu)),
      ];

      // Assess
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
      const messages = await queuedMessages();
      expect(
        messages.map((message) => [
          message.MessageAttributes?.endpoint?.StringValue,
          message.Attributes?.MessageGroupId,
          message.Attributes?.MessageDeduplicationId,
        ]),
      ).toEqual([
        ['eu', 'eu:918273', `eu:${sha256(BOOKING)}`],
        ['us', 'us:918273', `us:${sha256(BOOKING)}`],
      ]);
    });

    it('groups by endpoint and event when endpoint and data.id together exceed the 128 characters of a FIFO group id', async () => {
      // Prepare: 'eu:' + 126 characters is 129
      const body = JSON.stringify(bookingPayload({ data: { id: '9'.repeat(126) } }));
      const { invoke, queuedMessages } = await coldReceiver({ fifo: true });

      // Act
      const response = await invoke(call('/webhook/eu', KEYS.eu, body));

      // Assess
      expect(response.statusCode).toBe(200);
      const [message] = await queuedMessages();
      expect(message?.Attributes?.MessageGroupId).toBe('eu:event_booked');
    });

    describe('with the endpoint directory (ENDPOINT_DIRECTORY_SECRET_ID)', () => {
      const DIRECTORY_ID = 'webhook/endpoint-directory';
      const DIRECTORY_ENV = { ENDPOINT_DIRECTORY_SECRET_ID: DIRECTORY_ID };

      beforeEach(() => {
        const directory = new FakeSecretStore(() => new Date(clock.ms));
        directory.put(JSON.stringify({ secretIds: SECRET_IDS }));
        secretsManager().stores.set(DIRECTORY_ID, directory);
      });

      it("reads the directory once, then serves each endpoint with its own secret's key", async () => {
        // Prepare
        const { invoke, queuedMessages } = await coldReceiver({ env: DIRECTORY_ENV });

        // Act
        const responses = [
          await invoke(call('/webhook/eu', KEYS.eu)),
          await invoke(call('/webhook/us', KEYS.us)),
          await invoke(call('/webhook/us', KEYS.eu)),
        ];

        // Assess
        expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 401]);
        expect(secretRequests(DIRECTORY_ID)).toBe(1);
        const messages = await queuedMessages();
        expect(messages.map((message) => message.MessageAttributes?.endpoint?.StringValue)).toEqual(
          ['eu', 'us'],
        );
        expectCleanOutput();
      });

      it.each([
        ['an endpoint the directory does not list', '/webhook/asia', 1],
        ['a name no endpoint can have, without reading the directory', '/webhook/EU', 0],
      ])('answers 404 for %s', async (_, path, directoryReads) => {
        // Prepare
        const { invoke } = await coldReceiver({ env: DIRECTORY_ENV });

        // Act
        const response = await invoke(call(path, KEYS.eu));

        // Assess
        expect(response.statusCode).toBe(404);
        expect(secretRequests(DIRECTORY_ID)).toBe(directoryReads);
        expect(secretRequests(SECRET_IDS.eu)).toBe(0);
      });

      it('answers 503 keys_unavailable while the directory cannot be read, trying again after 30 s', async () => {
        // Prepare: the role may not read the directory
        const { invoke, queuedBodies } = await coldReceiver({ env: DIRECTORY_ENV });
        secretsManager().behaviourBySecret.set(DIRECTORY_ID, {
          kind: 'error',
          type: 'AccessDeniedException',
          status: 400,
        });

        // Act
        const failed = [
          await invoke(call('/webhook/eu', KEYS.eu)),
          await invoke(call('/webhook/us', KEYS.us)),
        ];
        const readsWhileFailing = secretRequests(DIRECTORY_ID);
        secretsManager().behaviourBySecret.delete(DIRECTORY_ID);
        clock.ms += 31_000;
        const recovered = await invoke(call('/webhook/eu', KEYS.eu));

        // Assess
        expect(failed.map((response) => response.statusCode)).toEqual([503, 503]);
        expect(JSON.parse(failed[0]?.body ?? '')).toMatchObject({ reason: 'keys_unavailable' });
        expect(readsWhileFailing).toBe(1);
        expect(recovered.statusCode).toBe(200);
        expect(await queuedBodies()).toEqual([BOOKING]);
        expect(output.logs()).toContainEqual(
          expect.objectContaining({
            level: 'ERROR',
            message: 'Loading the signing keys failed; answering 503',
          }),
        );
        expectCleanOutput();
      });
    });

    it('serves /webhook/<name> with the single key when no endpoints are configured', async () => {
      // Prepare: SECRET_ID alone, the deployment without endpoints
      secretsManager().store = new FakeSecretStore(() => new Date(clock.ms));
      secretsManager().store.put(KEYS.eu);
      const { invoke, queuedMessages } = await coldReceiver({
        env: { SECRET_ID: 'webhook/signing-key' },
      });

      // Act
      const response = await invoke(call('/webhook/eu', KEYS.eu));

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      const [message] = await queuedMessages();
      expect(message?.MessageAttributes?.endpoint).toBeUndefined();
      expect(message?.MessageAttributes?.dedup_key?.StringValue).toBe(sha256(BOOKING));
    });
  },
);
