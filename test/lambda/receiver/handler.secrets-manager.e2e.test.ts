import { beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../../lambda/contract/environment.js';
import { CLIENT_SETTINGS } from '../../../lambda/receiver/handler.js';
import { lambdaContext, restApiEvent } from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall } from '../../support/booking.js';
import { type CapturedOutput, withCapturedOutput } from '../../support/capture-output.js';
import { useLocalSqs } from '../../support/local-sqs.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { FakeSecretStore } from '../../support/secret-store.js';
import { useSecretsManagerServer } from '../../support/secrets-manager-server.js';

const BOOKING = JSON.stringify(bookingPayload());
const KEYS = { current: 'sm-key-current-5e1d', pending: 'sm-key-pending-a7c3' } as const;
/** The function timeout the deployed receiver runs with. */
const FUNCTION_TIMEOUT_MS = 15_000;

describe('Function: handler (keys from Secrets Manager over its wire protocol)', () => {
  const sqs = useLocalSqs();
  const secretsManager = useSecretsManagerServer(new FakeSecretStore(() => new Date()));

  beforeEach(() => {
    const server = secretsManager();
    server.store = new FakeSecretStore(() => new Date());
    server.behaviour = { kind: 'answer', delayMs: 0 };
    server.requests.clear();
  });

  /** A cold receiver whose Secrets Manager client is the deployed one's, pointed at the server. */
  async function coldReceiver(env: Environment = {}) {
    return receiverOnNewQueue(
      sqs(),
      { SECRET_ID: 'webhook/signing-key', ...env },
      { secretsManagerClient: secretsManager().client(CLIENT_SETTINGS), now: () => Date.now() },
    );
  }

  /** A booking signed now with `key`, as a REST API event. */
  const signedBooking = (key: string) =>
    restApiEvent(signedCall(BOOKING, { key, timestamp: Math.floor(Date.now() / 1000) }));

  /** The messages of the errors logged. */
  const loggedErrors = (output: CapturedOutput): string[] =>
    output.logs().flatMap((log) => {
      const message = (log.error as { message?: unknown } | undefined)?.message;
      return typeof message === 'string' ? [message] : [];
    });

  describe('secret formats', () => {
    it.each([
      ['plain text', `${KEYS.current}\n`, {}],
      ['the key/value JSON the console stores', `{"webhook_secret":"${KEYS.current}"}`, {}],
      [
        'a JSON object with several fields and SECRET_JSON_FIELD naming the key',
        `{"username":"booking","signing_key":"${KEYS.current}","port":443}`,
        { SECRET_JSON_FIELD: 'signing_key' },
      ],
    ])('queues a call signed with the key when the secret is %s', async (_, value, env) => {
      // Prepare
      secretsManager().store.put(value);
      const { invoke, queuedBodies } = await coldReceiver(env);

      // Act
      const response = await invoke(signedBooking(KEYS.current));

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
    });

    it.each([
      [
        'several fields and no SECRET_JSON_FIELD',
        `{"username":"booking","signing_key":"${KEYS.current}"}`,
        {},
        'the value is a JSON object with fields "username", "signing_key" and not exactly one text field: set SECRET_JSON_FIELD',
      ],
      [
        'a SECRET_JSON_FIELD that is missing',
        `{"username":"booking","signing_key":"${KEYS.current}"}`,
        { SECRET_JSON_FIELD: 'key' },
        `SECRET_JSON_FIELD is 'key' but the JSON object has fields "username", "signing_key"`,
      ],
      [
        'a SECRET_JSON_FIELD that is not text',
        `{"signing_key":{"value":"${KEYS.current}"}}`,
        { SECRET_JSON_FIELD: 'signing_key' },
        `SECRET_JSON_FIELD 'signing_key' is not a text field`,
      ],
    ])(
      'answers 503 and logs the fields found, never a value, for %s',
      async (_, value, env, logged) => {
        // Prepare
        secretsManager().store.put(value);
        const { invoke } = await coldReceiver(env);

        // Act
        const [response, output] = await withCapturedOutput(() =>
          invoke(signedBooking(KEYS.current)),
        );

        // Assess
        expect(response.statusCode).toBe(503);
        expect(JSON.parse(response.body)).toMatchObject({ reason: 'keys_unavailable' });
        expect(loggedErrors(output)).toContainEqual(expect.stringContaining(logged));
        expect(output.text()).not.toContain(KEYS.current);
        expect(output.text()).not.toContain('booking"');
      },
    );

    it.each([
      ['AWSPENDING', ['AWSPENDING']],
      ['AWSPREVIOUS (inside the grace period)', undefined],
    ])(
      'skips a binary-only %s with a warning and queues calls signed with the current key',
      async (stage, stages) => {
        // Prepare
        const store = secretsManager().store;
        if (stages === undefined) {
          store.put(Uint8Array.from([1, 2, 3]));
          store.put(KEYS.current);
        } else {
          store.put(KEYS.current);
          store.put(Uint8Array.from([1, 2, 3]), stages);
        }
        const { invoke, queuedBodies } = await coldReceiver();

        // Act
        const [response, output] = await withCapturedOutput(() =>
          invoke(signedBooking(KEYS.current)),
        );

        // Assess
        expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
        expect(await queuedBodies()).toEqual([BOOKING]);
        expect(output.logs()).toContainEqual(
          expect.objectContaining({
            level: 'WARN',
            message: expect.stringContaining(
              `${stage.split(' ')[0]} skipped: it holds only SecretBinary`,
            ),
          }),
        );
      },
    );

    it('answers 503 and says so when AWSCURRENT holds only SecretBinary', async () => {
      // Prepare
      secretsManager().store.put(Uint8Array.from([1, 2, 3]));
      const { invoke } = await coldReceiver();

      // Act
      const [response, output] = await withCapturedOutput(() =>
        invoke(signedBooking(KEYS.current)),
      );

      // Assess
      expect(response.statusCode).toBe(503);
      expect(loggedErrors(output)).toContainEqual(
        expect.stringContaining('AWSCURRENT holds only SecretBinary'),
      );
    });
  });

  describe('when Secrets Manager is slow', () => {
    it('queues the first call after a cold start when every call takes 2.5 s', async () => {
      // Prepare
      const server = secretsManager();
      server.store.put(KEYS.current);
      server.store.put(KEYS.pending, ['AWSPENDING']);
      server.behaviour = { kind: 'answer', delayMs: 2500 };
      const { invoke, queuedBodies } = await coldReceiver();
      const startedAt = Date.now();
      const context = lambdaContext(
        undefined,
        () => FUNCTION_TIMEOUT_MS - (Date.now() - startedAt),
      );

      // Act
      const [response] = await withCapturedOutput(() =>
        invoke(signedBooking(KEYS.current), context),
      );

      // Assess: two round trips (DescribeSecret, then both GetSecretValue in parallel)
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
      expect(Object.fromEntries(server.requests)).toEqual({ DescribeSecret: 1, GetSecretValue: 2 });
      expect(Date.now() - startedAt).toBeLessThan(3 * 2500);
    }, 20_000);

    it('answers 503 keys_unavailable before the function times out when Secrets Manager never answers', async () => {
      // Prepare: a function with 3 s left, so the test stays short
      const server = secretsManager();
      server.store.put(KEYS.current);
      server.behaviour = { kind: 'silent' };
      const timeoutMs = 3000;
      const { invoke } = await coldReceiver();
      const startedAt = Date.now();
      const context = lambdaContext(undefined, () => timeoutMs - (Date.now() - startedAt));

      // Act
      const [response] = await withCapturedOutput(() =>
        invoke(signedBooking(KEYS.current), context),
      );

      // Assess
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(response.body)).toEqual({
        error: 'service_unavailable',
        reason: 'keys_unavailable',
      });
      expect(Date.now() - startedAt).toBeLessThan(timeoutMs);
    }, 10_000);
  });
});
