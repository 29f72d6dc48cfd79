import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signPayload } from '../../lambda/core/index.js';
import type { DeliveryDetail } from '../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { bookingPayload } from '../support/booking.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';
import { type FailureSource, startLocalReceiverInProcess } from '../support/local-receiver.js';
import { makeScratchDir } from '../support/scratch-dir.js';

const KEY = 'connections-test-key-2b7e1d';

// Issue 20, found by test/e2e/local-server.property.test.ts: answers lost or garbled on pipelined
// connections, bookings queued behind an answer that closed the connection, and 413s the
// inspector never listed.
describe('Function: startWebhookServer, connections', () => {
  let receiver: LocalReceiver;
  let scratch: string;
  const failures: Array<{ source: FailureSource; error: unknown }> = [];
  let bookingId = 800_000_000;

  beforeAll(async () => {
    scratch = await makeScratchDir('webhook-connections');
    receiver = await startLocalReceiverInProcess(KEY, scratch, {}, (source, error) => {
      failures.push({ source, error });
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  beforeEach(() => {
    expect(failures).toEqual([]);
  });

  /** A genuine booking as request bytes, and its id. */
  function booking(
    host: string,
    extra: { readonly version?: string; readonly headers?: string } = {},
  ): { id: string; bytes: Buffer } {
    const id = String(bookingId++);
    const payload = bookingPayload();
    const body = JSON.stringify({ ...payload, data: { ...(payload.data as object), id } });
    const head = [
      `POST /webhook HTTP/${extra.version ?? '1.1'}`,
      `Host: ${host}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      `Service-Signature: ${signPayload(body, KEY, Math.floor(Date.now() / 1000))}`,
      ...(extra.headers === undefined ? [] : [extra.headers]),
    ].join('\r\n');
    return { id, bytes: Buffer.from(`${head}\r\n\r\n${body}`) };
  }

  async function queuedIds(): Promise<string[]> {
    const messages = await receiveAndDeleteAll(receiver.queues.queueUrl);
    return messages.map((message) => JSON.parse(message.Body ?? '{}').data?.id as string);
  }

  it.each([
    [
      'declared in Content-Length',
      (host: string) =>
        `POST /webhook HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 300000\r\n\r\n${'a'.repeat(300_000)}`,
      'the body was not read: its Content-Length (300000 bytes) is above MAX_BODY_BYTES (262144)',
    ],
    [
      'found while reading a chunked body',
      (host: string) =>
        `POST /webhook HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\n${(300_000).toString(16)}\r\n${'a'.repeat(300_000)}\r\n0\r\n\r\n`,
      'the body was not read past MAX_BODY_BYTES (262144 bytes)',
    ],
  ])(
    'lists a 413 it answers itself (%s) in the inspector, saying why there is no diagnosis',
    async (_, request, why) => {
      // Prepare
      const connection = await KeptAliveConnection.open(receiver.webhook.url);

      // Act
      connection.write(Buffer.from(request(connection.host)));
      const answer = await connection.readAnswer();
      connection.close();
      const id = answer?.headers['x-amzn-requestid'] ?? '';
      const detail = (await (
        await fetch(`${receiver.inspectorUrl}/api/deliveries/${id}`)
      ).json()) as DeliveryDetail;

      // Assess
      expect(answer?.status).toBe(413);
      expect(answer?.headers.connection).toBe('close');
      expect(detail).toMatchObject({
        id,
        status: 413,
        reason: 'payload_too_large',
        endpoint: '/webhook',
        noDiagnosis: why,
      });
    },
  );

  it('processes nothing pipelined after a 413, which closes the connection', async () => {
    // Prepare
    const connection = await KeptAliveConnection.open(receiver.webhook.url);
    const after = booking(connection.host);

    // Act
    connection.write(
      Buffer.concat([
        Buffer.from(
          `POST /webhook HTTP/1.1\r\nHost: ${connection.host}\r\nContent-Length: 300000\r\n\r\n${'a'.repeat(300_000)}`,
        ),
        after.bytes,
      ]),
    );
    const first = await connection.readAnswer();
    const second = await connection.readAnswer();
    connection.close();

    // Assess: the booking's sender saw no answer, so it must not have been queued
    expect(first?.status).toBe(413);
    expect(second).toBeUndefined();
    expect(await queuedIds()).toEqual([]);
  });

  it('answers a request pipelined behind another with Expect: 100-continue in order, the stream intact', async () => {
    // Prepare
    const connection = await KeptAliveConnection.open(receiver.webhook.url);
    const first = booking(connection.host);
    const second = booking(connection.host, { headers: 'Expect: 100-continue' });

    // Act
    connection.write(Buffer.concat([first.bytes, second.bytes]));
    const answers = [await connection.readAnswer(), await connection.readAnswer()];
    const third = booking(connection.host);
    connection.write(third.bytes);
    answers.push(await connection.readAnswer());
    connection.close();

    // Assess: Node wrote the 100 Continue inside the second answer, after its header
    expect(answers.map((answer) => [answer?.status, answer?.body])).toEqual([
      [200, '{"status":"queued"}'],
      [200, '{"status":"queued"}'],
      [200, '{"status":"queued"}'],
    ]);
    expect((await queuedIds()).sort()).toEqual([first.id, second.id, third.id]);
  });

  it.each([
    ['a body declared over MAX_BODY_BYTES', '/webhook', 300_000, 413],
    ['a path that names no endpoint', '/not-a-webhook', 100, 404],
  ])(
    'refuses a request with Expect: 100-continue and %s without a 100 Continue first, and closes',
    async (_, target, length, status) => {
      // Prepare
      const connection = await KeptAliveConnection.open(receiver.webhook.url);

      // Act: the head only, as a client that waits for 100 Continue sends it
      connection.write(
        Buffer.from(
          `POST ${target} HTTP/1.1\r\nHost: ${connection.host}\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`,
        ),
      );
      const first = await connection.readAnswer({ interim: true });
      const closed = await connection.closedWithin(2_000);
      connection.close();

      // Assess: the refusal is the only answer, so the client sends no body
      expect(first?.status).toBe(status);
      expect(closed).toBe(true);
    },
  );

  it('sends 100 Continue to a booking with Expect: 100-continue, then queues the body it sends', async () => {
    // Prepare
    const connection = await KeptAliveConnection.open(receiver.webhook.url);
    const { id, bytes } = booking(connection.host, { headers: 'Expect: 100-continue' });
    const headEnd = bytes.indexOf('\r\n\r\n') + 4;

    // Act
    connection.write(bytes.subarray(0, headEnd));
    const interim = await connection.readAnswer({ interim: true });
    connection.write(bytes.subarray(headEnd));
    const answer = await connection.readAnswer();
    connection.close();

    // Assess
    expect(interim?.status).toBe(100);
    expect([answer?.status, answer?.body]).toEqual([200, '{"status":"queued"}']);
    expect(await queuedIds()).toEqual([id]);
  });

  it.each([
    ['an HTTP/1.0 request', { version: '1.0' }],
    ['a request with Connection: close', { headers: 'Connection: close' }],
  ])('answers %s before refusing what was pipelined after it', async (_, extra) => {
    // Prepare
    const connection = await KeptAliveConnection.open(receiver.webhook.url);
    const closing = booking(connection.host, extra);
    const after = booking(connection.host);

    // Act
    connection.write(Buffer.concat([closing.bytes, after.bytes]));
    const answer = await connection.readAnswer();
    const closed = await connection.closedWithin(2_000);
    connection.close();

    // Assess: the 400 for the data after the close was written ahead of this answer, which the
    // sender never read although its booking was queued
    expect([answer?.status, answer?.body]).toEqual([200, '{"status":"queued"}']);
    expect(closed).toBe(true);
    expect(await queuedIds()).toEqual([closing.id]);
  });
});
