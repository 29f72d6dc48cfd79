import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postWebhook, type WebhookResponse } from '../../devkit/post-webhook.js';
import { signPayload } from '../../lambda/core/sign.js';
import { runBookingBody, seededRandom } from '../../loadtest/request-mix.js';
import { type CapturedOutput, captureOutput } from '../support/capture-output.js';
import { type HttpReceiver, startHttpReceiver } from '../support/http-receiver.js';
import { useLocalSqs } from '../support/local-sqs.js';

const NOW = 1_795_000_000;
const KEY = 'whsec-replay-5be1';
const RUN_ID = 'replay';

describe('Replay of a captured call', () => {
  const sqs = useLocalSqs();
  let output: CapturedOutput;
  let receivers: HttpReceiver[] = [];
  let queueCount = 0;
  const clock = { now: NOW };

  beforeEach(() => {
    clock.now = NOW;
    output = captureOutput();
  });
  afterEach(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
    receivers = [];
    output.restore();
  });

  /** The receiver on a new standard or FIFO queue, on the test clock, tolerance 300 s. */
  async function receiver(kind: 'standard' | 'fifo'): Promise<HttpReceiver> {
    queueCount += 1;
    const started = await startHttpReceiver({
      sqs: sqs(),
      queueName: `replay-${process.pid}-${queueCount}${kind === 'fifo' ? '.fifo' : ''}`,
      env: { WEBHOOK_SECRET: KEY },
      dependencies: { now: () => clock.now * 1000 },
    });
    receivers.push(started);
    return started;
  }

  /** One genuine booking call, signed now; `send` posts exactly these bytes and this header. */
  function capturedCall(index: number) {
    const body = runBookingBody({ runId: RUN_ID, index, random: seededRandom(index), now: NOW });
    const signature = signPayload(body, KEY, NOW);
    return {
      body,
      send: (url: string): Promise<WebhookResponse> =>
        postWebhook(url, Buffer.from(body), signature),
    };
  }

  const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

  it('stores a call sent twice within the tolerance once on a FIFO queue, also when 20 copies arrive at once', async () => {
    // Prepare
    const fifo = await receiver('fifo');
    const twice = capturedCall(1);
    const burst = capturedCall(2);

    // Act
    const first = await twice.send(fifo.url);
    clock.now += 299;
    const again = await twice.send(fifo.url);
    const copies = await Promise.all(Array.from({ length: 20 }, () => burst.send(fifo.url)));
    const { messages } = await fifo.drain(RUN_ID);

    // Assess
    expect([first, again, ...copies].map((answer) => answer.body)).toEqual(
      Array(22).fill('{"status":"queued"}'),
    );
    expect(messages.map((message) => message.digest).sort()).toEqual(
      [sha256(twice.body), sha256(burst.body)].sort(),
    );
  });

  it('stores a call sent twice within the tolerance twice on a standard queue, with the same dedup_key', async () => {
    // Prepare
    const standard = await receiver('standard');
    const call = capturedCall(3);

    // Act
    const first = await call.send(standard.url);
    clock.now += 299;
    const again = await call.send(standard.url);
    const { messages } = await standard.drain(RUN_ID);

    // Assess
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(messages).toEqual([
      { digest: sha256(call.body), dedupKey: sha256(call.body) },
      { digest: sha256(call.body), dedupKey: sha256(call.body) },
    ]);
  });

  it.each(['standard', 'fifo'] as const)(
    'refuses the same call after the tolerance with 401 timestamp_too_old on a %s queue',
    async (kind) => {
      // Prepare
      const target = await receiver(kind);
      const call = capturedCall(4);
      const first = await call.send(target.url);

      // Act
      clock.now += 301;
      const late = await call.send(target.url);
      const { messages } = await target.drain(RUN_ID);

      // Assess
      expect(first.status).toBe(200);
      expect(late).toEqual({
        status: 401,
        body: '{"error":"unauthorized","reason":"timestamp_too_old"}',
      });
      expect(messages).toHaveLength(1);
    },
  );
});
