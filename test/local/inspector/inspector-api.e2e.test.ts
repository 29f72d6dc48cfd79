import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../../devkit/sqs-client.js';
import { signPayload } from '../../../lambda/core/index.js';
import type { DeliveryDetail, DeliverySummary } from '../../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import php from '../../fixtures/signatures/php.json' with { type: 'json' };
import { bookingPayload } from '../../support/booking.js';
import { startLocalReceiverInProcess } from '../../support/local-receiver.js';

/** A PHP sender's vector: its key is the local key, its old `t` makes it a stale call. */
const STALE = php.vectors[0] as { key: string; body: string; header: string };
const SCRATCH = join(
  resolve(import.meta.dirname, '../../..'),
  '.local',
  `inspector-api-${process.pid}`,
);

describe('Function: the inspector API', () => {
  let receiver: LocalReceiver;
  let api: string;

  beforeAll(async () => {
    await mkdir(SCRATCH, { recursive: true });
    receiver = await startLocalReceiverInProcess(STALE.key, SCRATCH);
    api = `${receiver.inspectorUrl}/api/deliveries`;
  });

  afterAll(async () => {
    await receiver?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  const post = async (body: string, headers: Record<string, string>): Promise<string> => {
    const response = await fetch(receiver.webhook.url, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return response.headers.get('x-amzn-requestid') ?? '';
  };
  const detailOf = async (id: string): Promise<DeliveryDetail> =>
    (await fetch(`${api}/${id}`)).json() as Promise<DeliveryDetail>;

  it('shows a queued delivery with its headers as sent, its queue message, and when it was consumed', async () => {
    // Prepare
    const body = JSON.stringify(bookingPayload(), null, 2);
    const now = Math.floor(Date.now() / 1000);
    const signature = signPayload(body, STALE.key, now);

    // Act
    const id = await post(body, {
      'Content-Type': 'application/json',
      'Service-Signature': signature,
    });
    const listed = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };
    const before = await detailOf(id);
    const client = sqsClientFor(receiver.queues.queueUrl);
    const received = await client.send(
      new ReceiveMessageCommand({ QueueUrl: receiver.queues.queueUrl, WaitTimeSeconds: 1 }),
    );
    const message = received.Messages?.[0];
    await client.send(
      new DeleteMessageCommand({
        QueueUrl: receiver.queues.queueUrl,
        ReceiptHandle: message?.ReceiptHandle ?? '',
      }),
    );

    // Assess
    expect(listed.deliveries[0]).toMatchObject({
      id,
      endpoint: '/webhook',
      method: 'POST',
      status: 200,
      reason: 'queued',
      eventType: 'event_booked',
      bookingId: '918273',
      bodyBytes: Buffer.byteLength(body),
      consumed: false,
    });
    expect(before.headers).toContainEqual(['Service-Signature', signature]);
    expect(before.body).toBe(body);
    expect(before.message).toMatchObject({
      messageId: message?.MessageId,
      attributes: { event: 'event_booked', signature_timestamp: String(now) },
      consumed: false,
    });
    await expect
      .poll(async () => (await detailOf(id)).message)
      .toMatchObject({
        receiveCount: 1,
        consumed: true,
      });
    expect(JSON.stringify(before)).not.toContain(STALE.key);
  });

  it('diagnoses a stale call as verify does and replays it with a fresh signature, which is queued', async () => {
    // Prepare
    const id = await post(STALE.body, { 'Service-Signature': STALE.header });

    // Act
    const stale = await detailOf(id);
    const replay = await fetch(`${api}/${id}/replay?fresh=1`, { method: 'POST' });
    const answer = (await replay.json()) as { delivery: DeliverySummary };

    // Assess
    expect(stale).toMatchObject({ status: 401, reason: 'timestamp_too_old', bookingId: '48213' });
    expect(stale.diagnosis?.[0]).toMatch(/^the signature is valid at --now 1716000060/);
    expect(answer.delivery).toMatchObject({ status: 200, reason: 'queued', replayOf: id });
    // Signed as it is sent: the skew is whole seconds between signing and receipt, so a
    // second boundary (or a loaded CI machine) may read 1 or 2, never the stale call's hours.
    expect(answer.delivery.skewSeconds).toBeGreaterThanOrEqual(0);
    expect(answer.delivery.skewSeconds).toBeLessThanOrEqual(2);
    const replayed = await detailOf(answer.delivery.id);
    expect(replayed.body).toBe(STALE.body);
    expect(replayed.headers.find(([name]) => name === 'Service-Signature')?.[1]).not.toBe(
      STALE.header,
    );
  });

  it.each([
    ['came without a signature', (_body: string) => ({})],
    [
      'was signed with another key',
      (body: string) => ({
        'Service-Signature': signPayload(
          body,
          'not-the-endpoint-key',
          Math.floor(Date.now() / 1000),
        ),
      }),
    ],
    [
      "carries a genuine call's signature over other bytes",
      () => ({ 'Service-Signature': STALE.header }),
    ],
  ])(
    'refuses with 409 to sign afresh a body that %s, and hands out no signature over it',
    async (_case, headersFor) => {
      // Prepare: any local process can post a body of its choice; the key never signed it
      const body = JSON.stringify(bookingPayload({ source: 'forged' }));
      const id = await post(body, { 'Content-Type': 'application/json', ...headersFor(body) });
      const before = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };

      // Act
      const replay = await fetch(`${api}/${id}/replay?fresh=1`, { method: 'POST' });
      const answer = await replay.text();
      const detail = await detailOf(id);
      const after = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };

      // Assess
      expect(replay.status).toBe(409);
      expect(JSON.parse(answer)).toEqual({
        message: expect.stringMatching(
          /^the call's signature does not match this endpoint's local key over this body/,
        ),
      });
      expect(answer).not.toMatch(/signature=[0-9a-f]/);
      expect(detail.freshSignatureRefusal).toBe(JSON.parse(answer).message);
      // Nothing was sent to the receiver, so nothing was queued either.
      expect(after.deliveries).toHaveLength(before.deliveries.length);
    },
  );

  it('signs afresh a genuine call whose spacing differs from what was signed, as the receiver accepts it', async () => {
    // Prepare: whitespace between JSON tokens is not signed (spec 5.2), so the key signed this body
    const compact = JSON.stringify(bookingPayload());
    const spaced = JSON.stringify(JSON.parse(compact), null, 2);
    const old = Math.floor(Date.now() / 1000) - 3_600;
    const id = await post(spaced, { 'Service-Signature': signPayload(compact, STALE.key, old) });

    // Act
    const detail = await detailOf(id);
    const replay = await fetch(`${api}/${id}/replay?fresh=1`, { method: 'POST' });
    const answer = (await replay.json()) as { delivery: DeliverySummary };

    // Assess
    expect(detail).toMatchObject({ status: 401, reason: 'timestamp_too_old' });
    expect(detail).not.toHaveProperty('freshSignatureRefusal');
    expect(answer.delivery).toMatchObject({ status: 200, reason: 'queued', replayOf: id });
  });

  it('refuses with 409, sending nothing, to sign afresh a body that is not JSON', async () => {
    // Prepare
    const id = await post('not json', { 'Service-Signature': STALE.header });
    const before = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };

    // Act
    const replay = await fetch(`${api}/${id}/replay?fresh=1`, { method: 'POST' });

    // Assess
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({
      message:
        'the body is not a single JSON value, which the service never signs: replay the exact request instead',
    });
    const after = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };
    expect(after.deliveries).toHaveLength(before.deliveries.length);
  });

  it('keeps a body above 64 KiB truncated, with its full size and SHA-256', async () => {
    // Prepare
    const body = JSON.stringify({ event: 'event_booked', padding: 'x'.repeat(80 * 1024) });

    // Act
    const id = await post(body, { 'Content-Type': 'application/json' });
    const detail = await detailOf(id);
    const replay = await fetch(`${api}/${id}/replay`, { method: 'POST' });

    // Assess
    expect(detail).toMatchObject({
      status: 401,
      reason: 'missing_header',
      bodyBytes: Buffer.byteLength(body),
      bodyTruncated: true,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(detail.body).toBe(body.slice(0, 64 * 1024));
    expect(replay.status).toBe(409);
  });

  it('shows a body that starts with a byte order mark as the exact bytes received', async () => {
    // Prepare: UTF-8's BOM (EF BB BF), which a strict decoder strips unless told not to
    const body = `\uFEFF${JSON.stringify(bookingPayload())}`;

    // Act
    const id = await post(body, { 'Content-Type': 'application/json' });
    const detail = await detailOf(id);

    // Assess
    expect(detail.bodyEncoding).toBe('utf8');
    expect(detail.body).toBe(body);
    expect(Buffer.byteLength(detail.body)).toBe(detail.bodyBytes);
    expect(detail.bodySha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('says a web page sent a call that came with Origin, and refuses to sign it afresh', async () => {
    // Prepare: a page's cross-site POST looking like a booking (a browser adds Origin; the
    // booking service never sends it), with a signature header for a fresh one to replace
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify(bookingPayload({ source: 'web-page' }));
    const id = await post(body, {
      Origin: 'https://attacker.example',
      'Content-Type': 'text/plain',
      'Service-Signature': signPayload(body, 'not-the-endpoint-key', now),
    });

    // Act
    const detail = await detailOf(id);
    const fresh = await fetch(`${api}/${id}/replay?fresh=1`, { method: 'POST' });
    const refusal = (await fresh.json()) as { message: string };
    const listed = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };

    // Assess
    expect(detail).toMatchObject({
      status: 401,
      bookingId: '918273',
      webPageOrigin: 'https://attacker.example',
    });
    expect(fresh.status).toBe(403);
    expect(refusal.message).toMatch(/^a web page \(https:\/\/attacker\.example\) sent this call/);
    expect(listed.deliveries.filter((delivery) => delivery.replayOf === id)).toEqual([]);
  });

  it('shows no web page for a call without Origin, as the booking service sends it', async () => {
    // Act
    const detail = await detailOf(await post('{}', {}));

    // Assess
    expect(detail).not.toHaveProperty('webPageOrigin');
  });

  it('refuses a request addressed to another host name (DNS rebinding)', async () => {
    // Act
    const status = await new Promise<number | undefined>((resolveStatus, reject) => {
      const outgoing = request(api, { headers: { host: 'inspector.example.com' } }, (response) => {
        response.resume();
        resolveStatus(response.statusCode);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });

    // Assess
    expect(status).toBe(403);
  });

  it('refuses a replay posted by another site', async () => {
    // Prepare
    const id = await post('{}', {});

    // Act
    const replay = await fetch(`${api}/${id}/replay`, {
      method: 'POST',
      headers: { origin: 'https://attacker.example' },
    });

    // Assess
    expect(replay.status).toBe(403);
  });
});
