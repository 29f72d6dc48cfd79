import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_SETTINGS } from '../../../lambda/receiver/handler.js';
import { FRONT_DOORS, type HttpCall } from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { useLocalSqs } from '../../support/local-sqs.js';
import { withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { receiverMetricValues } from '../../support/receiver-metrics.js';
import { FakeSecretStore } from '../../support/secret-store.js';
import { useSecretsManagerServer } from '../../support/secrets-manager-server.js';

const BOOKING = JSON.stringify(bookingPayload());
const KEY = 'allowlist-test-key-6d1f';
const ALLOWED_SOURCE_IPS = '203.0.113.0/24, 2001:db8:4::/48';
const OUTSIDE = '198.51.100.23';
const SOURCE_NOT_ALLOWED = { error: 'forbidden', reason: 'source_not_allowed' };

describe.each(FRONT_DOORS)(
  'Function: handler with ALLOWED_SOURCE_IPS ($name events)',
  ({ event }) => {
    withoutSdkNodeVersionWarning();
    const sqs = useLocalSqs();
    const secretsManager = useSecretsManagerServer(new FakeSecretStore(() => new Date()));
    let output: CapturedOutput;

    beforeEach(() => {
      output = captureOutput();
      const server = secretsManager();
      server.store = new FakeSecretStore(() => new Date());
      server.store.put(KEY);
      server.behaviour = { kind: 'answer', delayMs: 0 };
      server.requests.clear();
    });
    afterEach(() => {
      output.restore();
    });

    /** A cold receiver with the allowlist, its keys in Secrets Manager over the wire. */
    const coldReceiver = (env: Record<string, string> = {}) =>
      receiverOnNewQueue(
        sqs(),
        { SECRET_ID: 'webhook/signing-key', ALLOWED_SOURCE_IPS, ...env },
        { secretsManagerClient: secretsManager().client(CLIENT_SETTINGS), now: () => Date.now() },
      );

    /** A booking signed now with the key, from `sourceIp`. */
    const signedFrom = (sourceIp: string, call: HttpCall = {}) =>
      event({
        ...signedCall(BOOKING, { key: KEY, timestamp: Math.floor(Date.now() / 1000) }),
        sourceIp,
        ...call,
      });

    /** How many requests reached Secrets Manager: a key load, or none. */
    const keyLoads = () => [...secretsManager().requests.values()].reduce((a, b) => a + b, 0);

    it.each([
      ['IPv4', '203.0.113.77'],
      ['IPv6', '2001:db8:4:1::9'],
    ])(
      'verifies and queues a signed call from an %s address inside the list',
      async (_, source) => {
        // Prepare
        const { invoke, queuedBodies } = await coldReceiver();

        // Act
        const response = await invoke(signedFrom(source));

        // Assess
        expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
        expect(keyLoads()).toBeGreaterThan(0);
        expect(await queuedBodies()).toEqual([BOOKING]);
      },
    );

    it('still verifies the signature of a call from inside the list: a forged one gets 401', async () => {
      // Prepare
      const { invoke } = await coldReceiver();

      // Act
      const response = await invoke(
        signedFrom('203.0.113.77', { headers: { 'Service-Signature': 't=1,signature=00' } }),
      );

      // Assess
      expect(response.statusCode).toBe(401);
    });

    it('refuses a call from an address outside the list with 403 before loading any key', async () => {
      // Prepare
      const { invoke, queuedBodies } = await coldReceiver();

      // Act
      const response = await invoke(signedFrom(OUTSIDE));

      // Assess
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toBe('application/json');
      expect(JSON.parse(response.body)).toEqual(SOURCE_NOT_ALLOWED);
      expect(keyLoads()).toBe(0);
      expect(await queuedBodies()).toEqual([]);
    });

    it('refuses an outside call before reading its body: not 413 for a body over the limit, not 401 for bad base64', async () => {
      // Prepare
      const { invoke } = await coldReceiver({ MAX_BODY_BYTES: '16' });

      // Act
      const tooLarge = await invoke(signedFrom(OUTSIDE));
      const badBase64 = await invoke({
        ...signedFrom(OUTSIDE),
        body: '%%% not base64 %%%',
        isBase64Encoded: true,
      });

      // Assess
      expect([tooLarge.statusCode, badBase64.statusCode]).toEqual([403, 403]);
      expect(keyLoads()).toBe(0);
    });

    it('logs the refusal at WARN with the address and counts it by reason, never as a signature rejection', async () => {
      // Prepare
      const { invoke } = await coldReceiver();

      // Act
      await invoke(signedFrom(OUTSIDE, { requestId: 'req-outside-1' }));

      // Assess
      expect(output.logs()).toContainEqual(
        expect.objectContaining({
          level: 'WARN',
          outcome: 'rejected',
          status: 403,
          reason: 'source_not_allowed',
          source_ip: OUTSIDE,
          api_request_id: 'req-outside-1',
        }),
      );
      const metrics = receiverMetricValues(output.text());
      expect(metrics).toContainEqual(
        expect.objectContaining({
          name: 'WebhookRejected',
          value: 1,
          dimensions: expect.objectContaining({ reason: 'source_not_allowed' }),
        }),
      );
      expect(metrics.filter(({ name }) => name === 'SourceNotAllowed')).toHaveLength(1);
      expect(metrics.map(({ name }) => name)).not.toContain('SignatureRejected');
    });

    it.each([
      ['X-Forwarded-For', 'X-Forwarded-For', '203.0.113.77'],
      [
        'X-Forwarded-For with the allowed address first',
        'X-Forwarded-For',
        '203.0.113.77, 198.51.100.1',
      ],
      ['Forwarded', 'Forwarded', 'for=203.0.113.77'],
      ['X-Real-IP', 'X-Real-IP', '203.0.113.77'],
    ])(
      'refuses an outside call whose %s header names an allowed address',
      async (_, name, value) => {
        // Prepare
        const { invoke } = await coldReceiver();

        // Act
        const response = await invoke(signedFrom(OUTSIDE, { extraHeaders: [[name, value]] }));

        // Assess
        expect(response.statusCode).toBe(403);
        expect(JSON.parse(response.body)).toEqual(SOURCE_NOT_ALLOWED);
        expect(keyLoads()).toBe(0);
      },
    );

    it('lets every source in when ALLOWED_SOURCE_IPS is not set', async () => {
      // Prepare
      const { invoke } = await coldReceiver({ ALLOWED_SOURCE_IPS: '' });

      // Act
      const response = await invoke(signedFrom(OUTSIDE));

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
    });
  },
);

describe('Function: handler with ALLOWED_SOURCE_IPS (events without a source address)', () => {
  const sqs = useLocalSqs();

  it('refuses a proxy event that carries no source address, and still answers 400 to a non-proxy event', async () => {
    // Prepare
    const { invoke } = await receiverOnNewQueue(sqs(), {
      WEBHOOK_SECRET: KEY,
      ALLOWED_SOURCE_IPS,
    });
    const [{ event }] = FRONT_DOORS;
    const proxy = event(
      signedCall(BOOKING, { key: KEY, timestamp: Math.floor(Date.now() / 1000) }),
    );
    const withoutSource = {
      ...proxy,
      requestContext: { ...proxy.requestContext, identity: {} },
    };

    // Act
    const [refused, unsupported] = await captureOutputOf(async () => [
      await invoke(withoutSource),
      await invoke({ Records: [] }),
    ]);

    // Assess
    expect(refused.statusCode).toBe(403);
    expect(unsupported.statusCode).toBe(400);
    expect(JSON.parse(unsupported.body)).toMatchObject({ reason: 'unsupported_event' });
  });
});

/** Runs `act` with output captured (the handler logs each call), returning its result. */
async function captureOutputOf<T>(act: () => Promise<T>): Promise<T> {
  const output = captureOutput();
  try {
    return await act();
  } finally {
    output.restore();
  }
}
