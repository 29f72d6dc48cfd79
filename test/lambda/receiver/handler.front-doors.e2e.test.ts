import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  FRONT_DOORS,
  functionUrlEvent,
  httpApiEvent,
  restApiEvent,
} from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall, signRawBody, TEST_KEY } from '../../support/booking.js';
import { withCapturedOutput } from '../../support/capture-output.js';
import { useLocalSqs } from '../../support/local-sqs.js';
import { receiverOnNewQueue } from '../../support/receiver-harness.js';
import { receiverMetricValues } from '../../support/receiver-metrics.js';

const NOW = 1_795_000_000;
const BOOKING = JSON.stringify(bookingPayload());
const FORGED = `t=${NOW},signature=${'0'.repeat(64)}`;

describe('Function: handler (events as each front door sends them)', () => {
  const sqs = useLocalSqs();

  async function receiver() {
    return receiverOnNewQueue(sqs(), { WEBHOOK_SECRET: TEST_KEY }, { now: () => NOW * 1000 });
  }

  describe.each(FRONT_DOORS)('with $name events', ({ event }) => {
    it('queues a signed booking sent with lower-case header names', async () => {
      // Prepare
      const { invoke, queuedBodies } = await receiver();
      const header = signedCall(BOOKING, { timestamp: NOW }).headers?.['Service-Signature'] ?? '';

      // Act
      const response = await invoke(
        event({ body: BOOKING, headers: { 'service-signature': header } }),
      );

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
    });

    it('sends the front door request id along as the request_id message attribute', async () => {
      // Prepare
      const { invoke, queuedMessages } = await receiver();
      const requestId = randomUUID();

      // Act
      await invoke(event({ ...signedCall(BOOKING, { timestamp: NOW }), requestId }));

      // Assess
      const [message] = await queuedMessages();
      expect(message?.MessageAttributes?.request_id?.StringValue).toBe(requestId);
    });

    it('queues a signed booking whose body arrives base64-encoded, byte for byte', async () => {
      // Prepare
      const { invoke, queuedBodies } = await receiver();

      // Act
      const response = await invoke(event(signedCall(BOOKING, { timestamp: NOW, base64: true })));

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
    });

    it.each([
      ['two identical copies', (genuine: string) => [genuine, genuine]],
      ['the genuine copy, then a forged one', (genuine: string) => [genuine, FORGED]],
      ['a forged copy, then the genuine one', (genuine: string) => [FORGED, genuine]],
    ])('queues a call that sends Service-Signature twice: %s', async (_, copies) => {
      // Prepare
      const { invoke, queuedBodies } = await receiver();
      const call = signedCall(BOOKING, { timestamp: NOW });
      const genuine = call.headers?.['Service-Signature'] ?? '';
      const [first = '', second = ''] = copies(genuine);

      // Act
      const response = await invoke(
        event({
          body: BOOKING,
          headers: { 'Service-Signature': first },
          extraHeaders: [['service-signature', second]],
        }),
      );

      // Assess
      expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
      expect(await queuedBodies()).toEqual([BOOKING]);
    });

    it('answers 401 malformed_header when no copy of a repeated header is usable', async () => {
      // Prepare
      const { invoke } = await receiver();

      // Act
      const response = await invoke(
        event({
          body: BOOKING,
          headers: { 'Service-Signature': 'v1=abc' },
          extraHeaders: [['Service-Signature', 'signature=def']],
        }),
      );

      // Assess
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(response.body)).toEqual({
        error: 'unauthorized',
        reason: 'malformed_header',
      });
    });

    it.each([
      ['not JSON', { body: 'event=event_booked' }],
      ['not UTF-8', { body: Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }],
      ['a character SQS refuses', { body: '{"event":"event_booked\u0000"}' }],
      ['JSON that is not an object', { body: '[{"event":"event_booked"}]' }],
      ['the booking sent as base64', { body: BOOKING, base64: true }],
    ])(
      'answers 401 to a forged call whose body is %s, counted in SignatureRejected',
      async (_, call) => {
        // Prepare
        const { invoke, queuedBodies } = await receiver();

        // Act
        const [response, output] = await withCapturedOutput(() =>
          invoke(event({ ...call, headers: { 'Service-Signature': FORGED } })),
        );

        // Assess
        expect(response.statusCode).toBe(401);
        expect(JSON.parse(response.body)).toEqual({
          error: 'unauthorized',
          reason: 'signature_mismatch',
        });
        expect(receiverMetricValues(output.text()).map(({ name }) => name)).toContain(
          'SignatureRejected',
        );
        expect(await queuedBodies()).toEqual([]);
      },
    );

    it('answers 400 body_not_json only when the body that is not JSON is signed', async () => {
      // Prepare
      const { invoke } = await receiver();
      const body = 'event=event_booked';

      // Act
      const response = await invoke(
        event({ body, headers: { 'Service-Signature': signRawBody(body, TEST_KEY, NOW) } }),
      );

      // Assess
      expect(response.statusCode).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ error: 'bad_request', reason: 'body_not_json' });
    });
  });

  it('answers 401 to a forged body API Gateway marked as base64 that is not valid base64', async () => {
    // Prepare
    const { invoke } = await receiver();
    const forged = { ...httpApiEvent({ headers: { 'Service-Signature': FORGED } }) };

    // Act
    const [response, output] = await withCapturedOutput(() =>
      invoke({ ...forged, body: 'not base64!', isBase64Encoded: true }),
    );

    // Assess
    expect(response.statusCode).toBe(401);
    expect(receiverMetricValues(output.text()).map(({ name }) => name)).toContain(
      'SignatureRejected',
    );
  });

  it('reads REST API copies from multiValueHeaders, where headers keeps only the last', async () => {
    // Prepare
    const { invoke } = await receiver();
    const genuine = signedCall(BOOKING, { timestamp: NOW }).headers?.['Service-Signature'] ?? '';
    const rest = restApiEvent({
      body: BOOKING,
      headers: { 'Service-Signature': genuine },
      extraHeaders: [['Service-Signature', FORGED]],
    });

    // Act
    const response = await invoke(rest);

    // Assess
    expect(rest.headers['Service-Signature']).toBe(FORGED);
    expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
  });

  it('reads the joined copies of HTTP API and function URL events', () => {
    // Prepare
    const call = {
      headers: { 'Service-Signature': 'a' },
      extraHeaders: [['service-signature', 'b']] as const,
    };

    // Assess: the shape the handler is driven with, as AWS documents it
    expect(httpApiEvent(call).headers['service-signature']).toBe('a,b');
    expect(functionUrlEvent(call).headers['service-signature']).toBe('a,b');
  });

  describe('with an event that is not a proxy event', () => {
    const S3_EVENT = {
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          awsRegion: 'eu-west-1',
          eventTime: '2026-11-21T10:15:00.000Z',
          eventName: 'ObjectCreated:Put',
          s3: { bucket: { name: 'bookings' }, object: { key: 'zelda.json', size: 42 } },
        },
      ],
    };
    const SQS_EVENT = {
      Records: [
        {
          messageId: '059f36b4-87a3-44ab-83d2-661975830a7d',
          body: 'Zelda Quixote-Marchetti',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:queue',
          awsRegion: 'eu-west-1',
        },
      ],
    };

    it.each([
      ['an empty object', {}, []],
      [
        "the Lambda console's test event",
        { key1: 'value1', key2: 'value2', key3: 'value3' },
        ['key1', 'key2', 'key3'],
      ],
      ['an S3 event', S3_EVENT, ['Records']],
      ['an SQS event', SQS_EVENT, ['Records']],
    ])(
      'answers %s with 400 unsupported_event and logs its top-level keys only',
      async (_, input, keys) => {
        // Prepare
        const { invoke, queuedBodies } = await receiver();

        // Act
        const [response, output] = await withCapturedOutput(() => invoke(input));

        // Assess
        expect(response).toEqual({
          statusCode: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'bad_request', reason: 'unsupported_event' }),
        });
        expect(output.logs()).toEqual([
          expect.objectContaining({
            level: 'ERROR',
            message: expect.stringContaining('unsupported_event'),
            reason: 'unsupported_event',
            event_keys: keys,
          }),
        ]);
        for (const value of ['value1', 'zelda.json', 'Zelda Quixote-Marchetti', 'bookings']) {
          expect(output.text()).not.toContain(value);
        }
        expect(await queuedBodies()).toEqual([]);
      },
    );
  });
});
