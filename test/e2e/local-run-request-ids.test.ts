import { rm } from 'node:fs/promises';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { signPayload } from '../../lambda/core/index.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { captureOutput } from '../support/capture-output.js';
import { startLocalReceiverInProcess } from '../support/local-receiver.js';
import { makeScratchDir } from '../support/scratch-dir.js';

const KEY = 'whsec-request-ids-41c7';
const CALLS = 40;

// startLocalReceiver is what npm start runs: the production handler behind the local server.
describe('npm start (request ids under concurrency)', () => {
  let dir: string;
  let receiver: LocalReceiver;

  beforeAll(async () => {
    dir = await makeScratchDir('request-ids');
    receiver = await startLocalReceiverInProcess(KEY, dir);
  });
  afterAll(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives every log line of a call that call’s own request id when 40 calls arrive at once', async () => {
    // Prepare
    const output = captureOutput();
    const now = Math.floor(Date.now() / 1000);
    const bodies = Array.from({ length: CALLS }, (_, index) =>
      buildBookingPayload({ event: index % 2 === 0 ? 'event_booked' : 'event_cancelled' }),
    );

    // Act
    const answers = await Promise.all(
      bodies.map((body, index) =>
        fetch(receiver.webhook.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Service-Signature': signPayload(body, index % 5 === 0 ? 'wrong-key' : KEY, now),
          },
          body,
        }),
      ),
    );
    output.restore();

    // Assess
    const answeredIds = answers.map((answer) => answer.headers.get('x-amzn-requestid'));
    const lines = output.logs().filter((line) => line.api_request_id !== undefined);
    expect(new Set(answeredIds).size).toBe(CALLS);
    expect(new Set(lines.map((line) => line.api_request_id))).toEqual(new Set(answeredIds));
    // The per-call decision line carries only api_request_id; lines Powertools writes (a 503, key
    // loading) carry the invocation's function_request_id too, and it must be the same call's.
    for (const line of lines) {
      if (line.function_request_id !== undefined) {
        expect(line.function_request_id).toBe(line.api_request_id);
      }
    }
  });

  it('sends each queued booking with its request id as the request_id attribute, as the answer names it', async () => {
    // Prepare
    const now = Math.floor(Date.now() / 1000);
    const bodies = Array.from({ length: 12 }, () => buildBookingPayload());
    const sqs = sqsClientFor(receiver.queues.queueUrl);

    // Act
    const answers = await Promise.all(
      bodies.map((body) =>
        fetch(receiver.webhook.url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Service-Signature': signPayload(body, KEY, now),
          },
          body,
        }),
      ),
    );
    // The first test's bookings are queued too: receive until the queue answers empty.
    const Messages: Message[] = [];
    for (;;) {
      const received = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: receiver.queues.queueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      );
      if (!received.Messages?.length) break;
      Messages.push(...received.Messages);
    }
    sqs.destroy();

    // Assess
    const answered = answers.map((answer) => answer.headers.get('x-amzn-requestid'));
    const queued = Messages.filter((message) => bodies.includes(message.Body ?? '')).map(
      (message) => message.MessageAttributes?.request_id?.StringValue,
    );
    expect(queued.sort()).toEqual(answered.sort());
  });
});
