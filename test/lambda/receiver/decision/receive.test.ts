import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload } from '../../../../lambda/core/sign.js';
import {
  KeyLoadError,
  type ReceivePolicy,
  type ReceiveRequest,
  receive,
  SinkSendError,
} from '../../../../lambda/receiver/decision/receive.js';
import { bookingPayload, signRawBody, TEST_KEY } from '../../../support/booking.js';
import { memoryKeySource, memorySink } from '../../../support/in-memory-ports.js';

const NOW = 1_795_000_000;
const POLICY: ReceivePolicy = {
  maxBodyBytes: 262_144,
  toleranceSeconds: 300,
  forwardEvents: new Set(['event_booked']),
};
const COMPACT_BOOKING = JSON.stringify(bookingPayload());

function signedRequest(
  body: string | Uint8Array,
  options: { key?: string; timestamp?: number; method?: string } = {},
): ReceiveRequest {
  return {
    method: options.method ?? 'POST',
    headers: {
      'service-signature': signPayload(body, options.key ?? TEST_KEY, options.timestamp ?? NOW),
    },
    body,
  };
}

function setup(policy: ReceivePolicy = POLICY, keys: string[] = [TEST_KEY]) {
  const sink = memorySink();
  const keySource = memoryKeySource(...keys);
  const run = (request: ReceiveRequest) =>
    receive(request, policy, { keys: keySource, sink, now: () => NOW });
  return { sink, keySource, run };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Function: receive', () => {
  describe('verified and forwarded', () => {
    it('queues the body exactly as received when the signature matches', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify(bookingPayload(), null, '\t');

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome).toMatchObject({ kind: 'queued', status: 200 });
      expect(sink.messages).toHaveLength(1);
      expect(sink.messages[0]?.body).toBe(body);
    });

    it('builds attributes, group id and the SHA-256 of the squashed body as dedup id', async () => {
      // Prepare
      const { sink, run } = setup();
      const pretty = JSON.stringify(bookingPayload(), null, 2);

      // Act
      await run(signedRequest(pretty, { timestamp: NOW - 7 }));

      // Assess
      expect(sink.messages[0]).toEqual({
        body: pretty,
        attributes: {
          event: 'event_booked',
          event_at: '2026-11-21T10:15:00+00:00',
          source: 'production',
        },
        signatureTimestamp: NOW - 7,
        deduplicationId: sha256(COMPACT_BOOKING),
        groupId: '918273',
      });
    });

    it('puts the endpoint called in an attribute and in front of the dedup and group ids', async () => {
      // Prepare
      const { sink, run } = setup();

      // Act
      await run({ ...signedRequest(COMPACT_BOOKING), endpoint: 'eu-west' });

      // Assess
      expect(sink.messages[0]).toMatchObject({
        attributes: { event: 'event_booked', endpoint: 'eu-west' },
        deduplicationId: `eu-west:${sha256(COMPACT_BOOKING)}`,
        groupId: 'eu-west:918273',
      });
    });

    it('puts the front door request id in the request_id attribute', async () => {
      // Prepare
      const { sink, run } = setup();

      // Act
      await run({ ...signedRequest(COMPACT_BOOKING), requestId: 'c6af9ac6-7b61-11e6-9a41-93e8d' });

      // Assess
      expect(sink.messages[0]?.attributes.request_id).toBe('c6af9ac6-7b61-11e6-9a41-93e8d');
    });

    it.each([
      ['empty', ''],
      ['with a space', 'req 1'],
      ['with a control character', 'req\u0000'],
      ['longer than 128 characters', 'r'.repeat(129)],
    ])('leaves out a request id that is %s and still queues the booking', async (_, requestId) => {
      // Prepare
      const { sink, run } = setup();

      // Act
      const outcome = await run({ ...signedRequest(COMPACT_BOOKING), requestId });

      // Assess
      expect(outcome.kind).toBe('queued');
      expect(sink.messages[0]?.attributes).not.toHaveProperty('request_id');
    });

    it('keeps every id within 128 characters for the longest endpoint name', async () => {
      // Prepare: a 32-character name and a data.id that fits a group id only without it
      const { sink, run } = setup();
      const endpoint = 'e'.repeat(32);
      const body = JSON.stringify(bookingPayload({ data: { id: '1'.repeat(100) } }));

      // Act
      await run({ ...signedRequest(body), endpoint });

      // Assess
      const message = sink.messages[0];
      expect(message?.deduplicationId).toHaveLength(32 + 1 + 64);
      expect(message?.groupId).toBe(`${endpoint}:event_booked`);
    });

    it('gives a compact and a pretty copy of one payload the same dedup id', async () => {
      // Prepare
      const { sink, run } = setup();

      // Act
      await run(signedRequest(COMPACT_BOOKING));
      await run(signedRequest(JSON.stringify(bookingPayload(), null, 4), { timestamp: NOW - 60 }));

      // Assess
      const [first, second] = sink.messages;
      expect(first?.deduplicationId).toBe(second?.deduplicationId);
    });

    it('reports key stage, signed form and timestamp age when the sender signed unescaped slashes but sent \\/', async () => {
      // Prepare
      const { sink, run } = setup(POLICY, ['key-current', 'key-pending']);
      const sent = COMPACT_BOOKING.replaceAll('/', '\\/');
      const request = {
        ...signedRequest(sent),
        headers: { 'service-signature': signPayload(COMPACT_BOOKING, 'key-pending', NOW - 42) },
      };

      // Act
      const outcome = await run(request);

      // Assess
      expect(outcome).toEqual({
        kind: 'queued',
        status: 200,
        details: {
          eventType: 'event_booked',
          timestampAgeSeconds: 42,
          keyStage: 'AWSPENDING',
          signedForm: 'slashes_unescaped',
          dedupKey: sink.messages[0]?.deduplicationId,
        },
      });
      expect(sink.messages[0]?.body).toBe(sent);
    });

    it('groups by event when data.id is missing', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify(bookingPayload({ data: { user: {} } }));

      // Act
      await run(signedRequest(body));

      // Assess
      expect(sink.messages[0]?.groupId).toBe('event_booked');
    });

    it('groups by event when data.id is not a valid SQS group id', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify(bookingPayload({ data: { id: 'has spaces' } }));

      // Act
      await run(signedRequest(body));

      // Assess
      expect(sink.messages[0]?.groupId).toBe('event_booked');
    });

    it('leaves out event_at and source attributes when the payload has no usable values', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify({ event: 'event_booked', event_at: 12, source: '' });

      // Act
      await run(signedRequest(body));

      // Assess
      expect(sink.messages[0]?.attributes).toEqual({ event: 'event_booked' });
    });

    it('forwards any verified event when FORWARD_EVENTS is *', async () => {
      // Prepare
      const { sink, run } = setup({ ...POLICY, forwardEvents: '*' });
      const body = JSON.stringify(bookingPayload({ event: 'event_cancelled' }));

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome.kind).toBe('queued');
      expect(sink.messages[0]?.attributes.event).toBe('event_cancelled');
    });

    it('accepts a timestamp older than 300 s when the tolerance allows it', async () => {
      // Prepare
      const { run } = setup({ ...POLICY, toleranceSeconds: 600 });

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { timestamp: NOW - 599 }));

      // Assess
      expect(outcome.status).toBe(200);
    });

    it('accepts a body of exactly MAX_BODY_BYTES', async () => {
      // Prepare
      const size = Buffer.byteLength(COMPACT_BOOKING);
      const { run } = setup({ ...POLICY, maxBodyBytes: size });

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING));

      // Assess
      expect(outcome.status).toBe(200);
    });
  });

  describe('verified, event not forwarded', () => {
    it('answers ignored and sends nothing when the event is not in FORWARD_EVENTS', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify(bookingPayload({ event: 'event_cancelled' }));

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome).toMatchObject({
        kind: 'ignored',
        status: 200,
        details: { eventType: 'event_cancelled' },
      });
      expect(sink.messages).toEqual([]);
    });
  });

  describe('rejected before verification', () => {
    it.each(['GET', 'PUT', 'DELETE'])('answers 405 to %s', async (method) => {
      // Prepare
      const { sink, run } = setup();

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { method }));

      // Assess
      expect(outcome).toMatchObject({ status: 405, reason: 'method_not_allowed' });
      expect(sink.messages).toEqual([]);
    });

    it('answers 413 when the body is one byte over MAX_BODY_BYTES, even if signed', async () => {
      // Prepare
      const size = Buffer.byteLength(COMPACT_BOOKING);
      const { sink, run } = setup({ ...POLICY, maxBodyBytes: size - 1 });

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING));

      // Assess
      expect(outcome).toMatchObject({ status: 413, reason: 'payload_too_large' });
      expect(sink.messages).toEqual([]);
    });

    it.each([
      ['text', (body: string): string | Uint8Array => body],
      ['bytes', (body: string): string | Uint8Array => Buffer.from(body)],
    ])(
      'counts MAX_BODY_BYTES in UTF-8 bytes, not characters, for a body given as %s',
      async (_, form) => {
        // Prepare: 'Zoë' and '€' take more bytes than characters.
        const body = JSON.stringify({ event: 'event_booked', data: { name: 'Zoë', cost: '€12' } });
        const bytes = Buffer.byteLength(body);
        const { run: runAtLimit } = setup({ ...POLICY, maxBodyBytes: bytes });
        const { run: runBelowLimit } = setup({ ...POLICY, maxBodyBytes: bytes - 1 });
        const request = { ...signedRequest(body), body: form(body) };

        // Act
        const atLimit = await runAtLimit(request);
        const belowLimit = await runBelowLimit(request);

        // Assess
        expect(atLimit).toMatchObject({ kind: 'queued', status: 200 });
        expect(belowLimit).toMatchObject({ status: 413, reason: 'payload_too_large' });
      },
    );
  });

  describe('rejected by the signature check', () => {
    it.each([
      ['missing_header', {}],
      ['malformed_header', { 'service-signature': 't=abc,signature=00' }],
    ])('answers 401 %s', async (reason, headers) => {
      // Prepare
      const { sink, run } = setup();

      // Act
      const outcome = await run({ method: 'POST', headers, body: Buffer.from(COMPACT_BOOKING) });

      // Assess
      expect(outcome).toMatchObject({ kind: 'rejected', status: 401, reason });
      expect(sink.messages).toEqual([]);
    });

    it.each([
      ['timestamp_too_old', NOW - 301],
      ['timestamp_in_future', NOW + 301],
    ])('answers 401 %s and reports the timestamp age', async (reason, timestamp) => {
      // Prepare
      const { run } = setup();

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { timestamp }));

      // Assess
      expect(outcome).toEqual({
        kind: 'rejected',
        status: 401,
        reason,
        details: { timestampAgeSeconds: NOW - timestamp },
      });
    });

    it('answers 401 signature_mismatch when signed with another key', async () => {
      // Prepare
      const { sink, run } = setup();

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { key: 'some-other-key' }));

      // Assess
      expect(outcome).toMatchObject({ status: 401, reason: 'signature_mismatch' });
      expect(sink.messages).toEqual([]);
    });

    it('answers 401 when one value of the body was changed after signing', async () => {
      // Prepare
      const { run } = setup();
      const request = signedRequest(COMPACT_BOOKING);
      const tampered = { ...request, body: Buffer.from(COMPACT_BOOKING.replace('12.50', '1.25')) };

      // Act
      const outcome = await run(tampered);

      // Assess
      expect(outcome).toMatchObject({ status: 401, reason: 'signature_mismatch' });
    });

    it('reads the payload only after verification: an unsigned non-object body is 401, not 400', async () => {
      // Prepare
      const { run } = setup();

      // Act
      const outcome = await run({ method: 'POST', headers: {}, body: Buffer.from('[1,2]') });

      // Assess
      expect(outcome).toMatchObject({ status: 401, reason: 'missing_header' });
    });

    it.each([
      ['not JSON', Buffer.from('event=event_booked')],
      ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])],
      ['undecodable (bad base64 from the front door)', undefined],
      ['JSON with a character SQS refuses', Buffer.from('{"event":"event_booked\uFFFE"}')],
      ['JSON that is not an object', Buffer.from('[1,2]')],
    ])('answers 401 signature_mismatch to a forged call whose body is %s', async (_, body) => {
      // Prepare: a fresh, well-formed header signed with another key
      const { sink, run } = setup();
      const header = signRawBody(body ?? '', 'forger-key', NOW);

      // Act
      const outcome = await run({ method: 'POST', headers: { 'service-signature': header }, body });

      // Assess
      expect(outcome).toMatchObject({ status: 401, reason: 'signature_mismatch' });
      expect(sink.messages).toEqual([]);
    });
  });

  describe('key rotation on mismatch', () => {
    it('accepts a call signed with a freshly rotated key after one early reload', async () => {
      // Prepare
      const { sink, keySource, run } = setup(POLICY, ['old-key']);
      keySource.rotateTo({ keys: ['new-key', 'old-key'], labels: ['AWSCURRENT', 'AWSPREVIOUS'] });

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { key: 'new-key' }));

      // Assess
      expect(outcome).toMatchObject({
        kind: 'queued',
        details: { keyStage: 'AWSCURRENT', keysRefreshed: true },
      });
      expect(sink.messages).toHaveLength(1);
      expect(keySource.refreshRequests).toBe(1);
    });

    it('answers 401 when the reload brings no new keys', async () => {
      // Prepare
      const { keySource, run } = setup();

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { key: 'forged-key' }));

      // Assess
      expect(outcome).toMatchObject({ status: 401, reason: 'signature_mismatch' });
      expect(keySource.refreshRequests).toBe(1);
    });

    it('asks for no reload when the header is missing or stale', async () => {
      // Prepare
      const { keySource, run } = setup();

      // Act
      await run({ method: 'POST', headers: {}, body: Buffer.from(COMPACT_BOOKING) });
      await run(signedRequest(COMPACT_BOOKING, { timestamp: NOW - 3600 }));

      // Assess
      expect(keySource.refreshRequests).toBe(0);
    });
  });

  describe('keys stale after a failed load', () => {
    it('answers 503 keys_unavailable, not 401, to a call that matches none of the stale keys', async () => {
      // Prepare
      const { sink, keySource, run } = setup(POLICY, ['old-key']);
      const failure = new KeyLoadError('DescribeSecret of webhook/key failed');
      keySource.failRefreshWith(failure);

      // Act
      const outcome = await run(
        signedRequest(COMPACT_BOOKING, { key: 'new-key', timestamp: NOW - 7 }),
      );

      // Assess
      expect(outcome).toEqual({
        kind: 'unavailable',
        status: 503,
        reason: 'keys_unavailable',
        error: failure,
        details: { timestampAgeSeconds: 7 },
      });
      expect(sink.messages).toEqual([]);
      expect(keySource.refreshRequests).toBe(1);
    });

    it('queues a call signed with a stale key without asking for a reload', async () => {
      // Prepare
      const { sink, keySource, run } = setup(POLICY, ['old-key']);
      keySource.failRefreshWith(new KeyLoadError('DescribeSecret of webhook/key failed'));

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING, { key: 'old-key' }));

      // Assess
      expect(outcome).toMatchObject({ kind: 'queued', status: 200 });
      expect(sink.messages).toHaveLength(1);
      expect(keySource.refreshRequests).toBe(0);
    });

    it.each([
      ['401 missing_header', { method: 'POST', headers: {}, body: Buffer.from(COMPACT_BOOKING) }],
      [
        '401 malformed_header',
        {
          method: 'POST',
          headers: { 'service-signature': 'signature=abc' },
          body: Buffer.from(COMPACT_BOOKING),
        },
      ],
      ['401 timestamp_too_old', signedRequest(COMPACT_BOOKING, { timestamp: NOW - 3600 })],
      ['401 timestamp_in_future', signedRequest(COMPACT_BOOKING, { timestamp: NOW + 3600 })],
      [
        '400 body_not_json',
        {
          method: 'POST',
          headers: { 'service-signature': signRawBody('event=event_booked', TEST_KEY, NOW) },
          body: Buffer.from('event=event_booked'),
        },
      ],
    ])('still answers %s, which no key set can change', async (expected, request) => {
      // Prepare
      const { keySource, run } = setup();
      keySource.failRefreshWith(new KeyLoadError('DescribeSecret of webhook/key failed'));

      // Act
      const outcome = await run(request);

      // Assess
      expect(`${outcome.status} ${'reason' in outcome ? outcome.reason : ''}`).toBe(expected);
    });
  });

  describe('rejected payloads of verified calls', () => {
    it('answers 400 body_not_json when the signature verifies over a body that is not JSON', async () => {
      // Prepare
      const { run } = setup();
      const header = signRawBody('event=event_booked', TEST_KEY, NOW);

      // Act
      const outcome = await run({
        method: 'POST',
        headers: { 'service-signature': header },
        body: Buffer.from('event=event_booked'),
      });

      // Assess
      expect(outcome).toMatchObject({ status: 400, reason: 'body_not_json' });
    });

    it.each([
      ['an array', '[{"event":"event_booked"}]'],
      ['a string', '"event_booked"'],
      ['null', 'null'],
      ['an object without event', '{"data":{}}'],
      ['an object with a numeric event', '{"event":1}'],
      ['an object with an empty event', '{"event":""}'],
      ['an object whose event SQS cannot carry', '{"event":"a\\u0000b"}'],
    ])('answers 400 invalid_payload when the signed body is %s', async (_, body) => {
      // Prepare
      const { sink, run } = setup({ ...POLICY, forwardEvents: '*' });

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome).toMatchObject({ status: 400, reason: 'invalid_payload' });
      expect(sink.messages).toEqual([]);
    });

    it('answers 400 body_not_utf8 when the signed bytes are not valid UTF-8', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = Buffer.concat([
        Buffer.from('{"event":"event_booked","note":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]);

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome).toMatchObject({ status: 400, reason: 'body_not_utf8' });
      expect(sink.messages).toEqual([]);
    });

    it.each([
      ['U+FFFF', 'non-character \uFFFF here'],
      ['U+FFFE', 'non-character \uFFFE here'],
      ['a lone high surrogate', 'half an emoji \uD83D here'],
      ['a lone low surrogate', 'half an emoji \uDE00 here'],
    ])(
      'answers 400 unsupported_characters when the text body holds %s, which SQS refuses',
      async (_, note) => {
        // Prepare
        const { sink, run } = setup();
        const body = JSON.stringify(bookingPayload({ note })).replace(
          /\\u([0-9a-f]{4})/gi,
          (_e, hex) => String.fromCharCode(Number.parseInt(hex, 16)),
        );

        // Act
        const outcome = await run(signedRequest(body));

        // Assess
        expect(outcome).toMatchObject({ status: 400, reason: 'unsupported_characters' });
        expect(sink.messages).toEqual([]);
      },
    );

    it('queues a text body with emoji (surrogate pairs) unchanged', async () => {
      // Prepare
      const { sink, run } = setup();
      const body = JSON.stringify(bookingPayload({ note: 'see you there 😀🎨' }));

      // Act
      const outcome = await run(signedRequest(body));

      // Assess
      expect(outcome).toMatchObject({ kind: 'queued', status: 200 });
      expect(sink.messages[0]?.body).toBe(body);
    });
  });

  describe('dependencies unavailable', () => {
    it.each([
      ['missing_header', {}],
      ['missing_header', { 'service-signature': [] }],
      ['malformed_header', { 'service-signature': 'garbled' }],
      ['malformed_header', { 'service-signature': ['t=1,signature=00', 'signature=zz'] }],
    ])(
      'answers 401 %s without loading keys, also while they cannot be loaded (%j)',
      async (reason, headers) => {
        // Prepare
        const { sink, keySource, run } = setup();
        keySource.failWith(new KeyLoadError('DescribeSecret failed'));

        // Act
        const outcome = await run({ method: 'POST', headers, body: COMPACT_BOOKING });

        // Assess
        expect(outcome).toEqual({ kind: 'rejected', status: 401, reason, details: {} });
        expect(sink.messages).toEqual([]);
      },
    );

    it('still answers 405 and 413 before a header that cannot be read', async () => {
      // Prepare
      const { run } = setup({ ...POLICY, maxBodyBytes: 4 });

      // Act
      const wrongMethod = await run({ method: 'GET', headers: {}, body: '' });
      const tooLarge = await run({ method: 'POST', headers: {}, body: COMPACT_BOOKING });

      // Assess
      expect(wrongMethod).toMatchObject({ status: 405, reason: 'method_not_allowed' });
      expect(tooLarge).toMatchObject({ status: 413, reason: 'payload_too_large' });
    });

    it('answers 503 keys_unavailable, never 401, when the key source cannot load keys', async () => {
      // Prepare
      const { sink, keySource, run } = setup();
      const failure = new KeyLoadError('DescribeSecret failed');
      keySource.failWith(failure);

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING));

      // Assess
      expect(outcome).toMatchObject({
        kind: 'unavailable',
        status: 503,
        reason: 'keys_unavailable',
        error: failure,
      });
      expect(sink.messages).toEqual([]);
    });

    it('answers 503 queue_unavailable when the queue does not take the message', async () => {
      // Prepare
      const { sink, run } = setup();
      const failure = new SinkSendError('SendMessage failed');
      sink.failWith(failure);

      // Act
      const outcome = await run(signedRequest(COMPACT_BOOKING));

      // Assess
      expect(outcome).toMatchObject({
        kind: 'unavailable',
        status: 503,
        reason: 'queue_unavailable',
        error: failure,
        details: { eventType: 'event_booked', keyStage: 'AWSCURRENT' },
      });
    });

    it('lets an unexpected error (a bug) propagate instead of answering as if it were an outage', async () => {
      // Prepare
      const { sink, run } = setup();
      sink.failWith(new TypeError('bug'));

      // Act
      const outcome = run(signedRequest(COMPACT_BOOKING));

      // Assess
      await expect(outcome).rejects.toThrow(TypeError);
    });
  });
});
