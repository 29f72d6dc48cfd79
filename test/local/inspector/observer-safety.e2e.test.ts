import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DIAGNOSED_DEPTH } from '../../../devkit/diagnose-signature.js';
import { signPayload } from '../../../lambda/core/index.js';
import type { DeliveryDetail, DeliverySummary } from '../../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import { bookingPayload } from '../../support/booking.js';
import { receiveAndDeleteAll } from '../../support/drain.js';
import { KeptAliveConnection } from '../../support/kept-alive-connection.js';
import { type FailureSource, startLocalReceiverInProcess } from '../../support/local-receiver.js';

const KEY = 'observer-safety-key-6b0d2e8f4a1c';
const SCRATCH = join(
  resolve(import.meta.dirname, '../../..'),
  '.local',
  `inspector-observer-${process.pid}`,
);

// Issue 20, finding 4: the inspector's diagnosis of a deep body threw after the 401 was written,
// the server logged it as the handler's failure and destroyed the kept-alive connection.
describe('Function: the inspector as an observer', () => {
  let receiver: LocalReceiver;
  const failures: Array<{ source: FailureSource; error: unknown }> = [];

  beforeAll(async () => {
    await mkdir(SCRATCH, { recursive: true });
    receiver = await startLocalReceiverInProcess(KEY, SCRATCH, {}, (source, error) => {
      failures.push({ source, error });
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('keeps a connection usable after 401s for deep bodies, queues the next booking once and lists the 401s with no diagnosis and why', async () => {
    // Prepare
    const now = Math.floor(Date.now() / 1000);
    const deepArrays = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const deepObjects = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const booking = JSON.stringify(bookingPayload({ source: `observer-${now}` }));
    const call = (body: string, signature: string) => ({
      method: 'POST',
      target: '/webhook',
      headers: { 'content-type': 'application/json', 'service-signature': signature },
      body,
    });
    const connection = await KeptAliveConnection.open(receiver.webhook.url);

    // Act
    const answers = [];
    try {
      answers.push(
        await connection.send(
          call(deepArrays, signPayload(deepArrays, 'not-the-endpoint-key', now)),
        ),
      );
      answers.push(
        await connection.send(call(deepObjects, signPayload(deepObjects, KEY, now - 3_600))),
      );
      answers.push(await connection.send(call(booking, signPayload(booking, KEY, now))));
    } finally {
      connection.close();
    }
    const ids = answers.map((answer) => answer.headers['x-amzn-requestid'] ?? '');
    const api = `${receiver.inspectorUrl}/api/deliveries`;
    const listed = (await (await fetch(api)).json()) as { deliveries: DeliverySummary[] };
    const details = await Promise.all(
      ids
        .slice(0, 2)
        .map(async (id) => (await (await fetch(`${api}/${id}`)).json()) as DeliveryDetail),
    );
    const queued = await receiveAndDeleteAll(receiver.queues.queueUrl);

    // Assess
    expect(
      answers.map(({ status, body }) => [
        status,
        JSON.parse(body).reason ?? JSON.parse(body).status,
      ]),
    ).toEqual([
      [401, 'signature_mismatch'],
      [401, 'timestamp_too_old'],
      [200, 'queued'],
    ]);
    expect(queued.filter((message) => message.Body === booking)).toHaveLength(1);
    expect(listed.deliveries.slice(0, 3).map(({ id }) => id)).toEqual(ids.toReversed());
    for (const detail of details) {
      expect(detail.noDiagnosis).toBe(`body nested deeper than ${MAX_DIAGNOSED_DEPTH} levels`);
      expect(detail.diagnosis).toBeUndefined();
    }
    expect(failures).toEqual([]);
  });

  it('diagnoses a forged delivery when it is opened, and keeps that diagnosis', async () => {
    // Prepare
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify(bookingPayload());
    const answer = await fetch(receiver.webhook.url, {
      method: 'POST',
      headers: { 'service-signature': signPayload(body, 'not-the-endpoint-key', now) },
      body,
    });
    const id = answer.headers.get('x-amzn-requestid') ?? '';
    const detailUrl = `${receiver.inspectorUrl}/api/deliveries/${id}`;

    // Act
    const first = (await (await fetch(detailUrl)).json()) as DeliveryDetail;
    const second = (await (await fetch(detailUrl)).json()) as DeliveryDetail;

    // Assess
    expect(answer.status).toBe(401);
    expect(first.diagnosis).toEqual([
      expect.stringMatching(
        /^no simple cause found: the key \(\d+ characters, SHA-256 [0-9a-f]{8}…\)/,
      ),
    ]);
    expect(second).toEqual(first);
    expect(first.noDiagnosis).toBeUndefined();
  });
});
