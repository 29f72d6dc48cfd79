import {
  DescribeSecretCommand,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../lambda/contract/settings.js';
import type { HandlerDependencies } from '../../../lambda/receiver/handler.js';
import { API_GATEWAY_FLAVOURS, type HttpCall } from '../../support/api-gateway-events.js';
import { BOOKER, bookingPayload, signedCall } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { FORGED_MARKER, LOG_INJECTIONS } from '../../support/hostile-input.js';
import { LOCAL_AWS_SETTINGS, useLocalSqs } from '../../support/local-sqs.js';
import { readWrittenLines, withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { refusingEndpoint } from '../../support/refusing-endpoint.js';
import { fakeSecretVersions } from '../../support/secrets-manager.js';

const NOW = 1_795_000_000;
const KEY = 'log-safety-key-0d6e93b1f4';
const PRETTY_BOOKING = JSON.stringify(bookingPayload(), null, 2);
/** A well-formed header whose signature matches nothing. */
const FORGED_SIGNATURE = `t=${NOW},signature=${'0'.repeat(64)}`;

describe('Function: handler (log safety)', () => {
  withoutSdkNodeVersionWarning();
  const sqs = useLocalSqs();
  let output: CapturedOutput;
  let clockSeconds = NOW;
  const now = () => clockSeconds * 1000;

  beforeEach(() => {
    clockSeconds = NOW;
    output = captureOutput();
  });
  afterEach(() => {
    output.restore();
  });

  /** A Secrets Manager mock holding {@link KEY} as AWSCURRENT. */
  function secretsManager() {
    const client = new SecretsManagerClient({ region: 'eu-west-1' });
    const mock = mockClient(client);
    fakeSecretVersions(mock, [
      { versionId: 'v1', value: KEY, createdAt: new Date(NOW * 1000), stages: ['AWSCURRENT'] },
    ]);
    return { client, mock };
  }

  /** A receiver reading {@link KEY} from Secrets Manager, as deployed. */
  function receiver(dependencies: HandlerDependencies = {}) {
    return receiverOnNewQueue(
      sqs(),
      { SECRET_ID: 'webhook/signing-key', FORWARD_EVENTS: 'event_booked' },
      { secretsManagerClient: secretsManager().client, now, ...dependencies },
    );
  }

  const signed = (payload: Record<string, unknown>) =>
    signedCall(JSON.stringify(bookingPayload(payload)), { key: KEY, timestamp: NOW });

  describe.each(API_GATEWAY_FLAVOURS)('with $name events', ({ event }) => {
    it.each(LOG_INJECTIONS)(
      'keeps %j to one JSON line per call, as data, wherever the caller puts it',
      async (text) => {
        // Prepare
        const { invoke } = await receiver();
        const calls: HttpCall[] = [
          { body: text },
          { method: text, body: PRETTY_BOOKING },
          { body: PRETTY_BOOKING, headers: { 'Service-Signature': text } },
          { body: text, headers: { 'Service-Signature': FORGED_SIGNATURE } },
          {
            body: PRETTY_BOOKING,
            headers: { 'Service-Signature': FORGED_SIGNATURE, [text]: text },
          },
          { body: text, base64: true, headers: { 'Service-Signature': FORGED_SIGNATURE } },
          // Verified calls: only a key holder gets this far, and the event type is logged.
          signed({ event: text }),
          signed({ source: text, event_at: text, data: { id: text, note: text } }),
        ];

        // Act
        for (const call of calls) await invoke(event(call));

        // Assess
        const written = readWrittenLines(output.text());
        expect(written.problems).toEqual([]);
        expect(written.logs).toHaveLength(calls.length);
        for (const record of written.logs) {
          expect(['INFO', 'WARN']).toContain(record.level);
          for (const [field, value] of Object.entries(record)) {
            if (field !== 'event_type') expect(JSON.stringify(value)).not.toContain(FORGED_MARKER);
          }
        }
        // Where a verified event type is logged, it is the sender's text, whole, in its own field.
        for (const record of written.logs.filter((log) => 'event_type' in log)) {
          expect([text, 'event_booked']).toContain(record.event_type);
        }
      },
    );
  });

  it('writes a verified event type with line breaks and a JSON fragment as one string field', async () => {
    // Prepare
    const { invoke } = await receiver();
    const text = `a\nb\r\nc\u2028d","level":"ERROR","message":"${FORGED_MARKER}`;

    // Act
    const response = await invoke(API_GATEWAY_FLAVOURS[0].event(signed({ event: text })));

    // Assess
    expect(JSON.parse(response.body)).toEqual({ status: 'ignored' });
    const written = readWrittenLines(output.text());
    expect(written.problems).toEqual([]);
    expect(written.logs).toEqual([
      expect.objectContaining({ level: 'INFO', outcome: 'ignored', event_type: text }),
    ]);
  });

  describe('never writes the key, the name, the e-mail, the body or a signature digest', () => {
    /** Everything that must never appear in output. */
    const SECRETS = [KEY, BOOKER.name, BOOKER.email, PRETTY_BOOKING, JSON.stringify(BOOKER)];

    function expectNothingSecretWritten(calls: number): void {
      const written = readWrittenLines(output.text());
      expect(written.problems).toEqual([]);
      expect(written.logs.length).toBeGreaterThanOrEqual(calls);
      for (const secret of SECRETS) expect(output.text()).not.toContain(secret);
      // Neither a sent signature nor an expected one: the only HMAC-sized hex is the dedup key,
      // in its own field (the same hash the queue carries as the dedup_key attribute).
      const dedupKeys = new Set(written.logs.map((log) => log.dedup_key));
      const hexes = output.text().match(/[0-9a-fA-F]{64}/g) ?? [];
      expect(hexes.filter((hex) => !dedupKeys.has(hex))).toEqual([]);
    }

    it.each(API_GATEWAY_FLAVOURS)(
      'when $name calls are queued, ignored, forged, stale or malformed',
      async ({ event }) => {
        // Prepare
        const { invoke, queuedBodies } = await receiver();
        const calls: HttpCall[] = [
          signedCall(PRETTY_BOOKING, { key: KEY, timestamp: NOW }),
          signed({ event: 'event_cancelled' }),
          signedCall(PRETTY_BOOKING, { key: `${KEY}-forged`, timestamp: NOW }),
          signedCall(PRETTY_BOOKING, { key: KEY, timestamp: NOW - 301 }),
          signedCall(JSON.stringify([bookingPayload()]), { key: KEY, timestamp: NOW }),
          { body: PRETTY_BOOKING, headers: { 'Service-Signature': FORGED_SIGNATURE } },
          { body: PRETTY_BOOKING },
          { method: 'PUT', body: PRETTY_BOOKING },
        ];

        // Act
        const statuses = [];
        for (const call of calls) statuses.push((await invoke(event(call))).statusCode);

        // Assess
        expect(statuses).toEqual([200, 200, 401, 401, 400, 401, 401, 405]);
        expect(await queuedBodies()).toEqual([PRETTY_BOOKING]);
        expectNothingSecretWritten(calls.length);
      },
    );

    it('when SQS refuses connections and the call is answered 503', async () => {
      // Prepare
      const sqsClient = new SQSClient({
        ...LOCAL_AWS_SETTINGS,
        endpoint: await refusingEndpoint(),
        maxAttempts: 1,
      });
      const { invoke } = await receiver({ sqsClient });

      // Act
      const response = await invoke(
        API_GATEWAY_FLAVOURS[0].event(signedCall(PRETTY_BOOKING, { key: KEY, timestamp: NOW })),
      );

      // Assess
      expect(response.statusCode).toBe(503);
      expect(readWrittenLines(output.text()).logs).toContainEqual(
        expect.objectContaining({ level: 'ERROR', reason: 'queue_unavailable' }),
      );
      expectNothingSecretWritten(1);
      sqsClient.destroy();
    });

    it('when Secrets Manager fails at cold start (503) and during a reload (stale keys)', async () => {
      // Prepare
      const failing = secretsManager();
      failing.mock.on(DescribeSecretCommand).rejects(accessDenied());
      const coldStart = await receiver({ secretsManagerClient: failing.client });
      const reloading = secretsManager();
      const warm = await receiver({ secretsManagerClient: reloading.client });
      const call = () =>
        API_GATEWAY_FLAVOURS[1].event(
          signedCall(PRETTY_BOOKING, { key: KEY, timestamp: clockSeconds }),
        );
      await warm.invoke(call());
      reloading.mock.on(DescribeSecretCommand).rejects(accessDenied());
      clockSeconds += SETTINGS.secretCacheSeconds.default + 1;

      // Act
      const statuses = [
        (await coldStart.invoke(call())).statusCode,
        (await warm.invoke(call())).statusCode,
      ];

      // Assess
      expect(statuses).toEqual([503, 200]);
      expect(readWrittenLines(output.text()).logs).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ level: 'ERROR', using_stale_keys: false }),
          expect.objectContaining({ level: 'ERROR', reason: 'keys_unavailable' }),
          expect.objectContaining({ level: 'ERROR', using_stale_keys: true }),
        ]),
      );
      expectNothingSecretWritten(3);
    });
  });
});

function accessDenied(): SecretsManagerServiceException {
  return new SecretsManagerServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: {},
    message: 'User is not authorized to perform: secretsmanager:DescribeSecret',
  });
}
