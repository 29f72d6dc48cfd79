import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../../devkit/sqs-client.js';
import { loadConfig } from '../../../lambda/receiver/config.js';
import { createHandler } from '../../../lambda/receiver/handler.js';
import { type LocalQueues, startLocalQueues } from '../../../local/local-queues.js';
import { lambdaContext, restApiEvent } from '../../support/api-gateway-events.js';
import { signedCall, TEST_KEY } from '../../support/booking.js';
import { captureOutput } from '../../support/capture-output.js';

const NOW = 1_795_000_000;
const MAX_BODY_BYTES = 512_000;

describe('Function: handler (message size)', () => {
  let queues: LocalQueues;

  beforeAll(async () => {
    // The local run's queues accept 1 MiB messages, as the deployed ones do.
    queues = await startLocalQueues({ port: 0 });
  });
  afterAll(async () => {
    await queues.close();
  });

  it('queues a signed body at the largest MAX_BODY_BYTES whose event and source fill it', async () => {
    // Prepare: every byte of the body is copied again into the event and source attributes.
    const skeleton = JSON.stringify({ event: '', source: '' });
    const filler = MAX_BODY_BYTES - skeleton.length;
    const half = Math.floor(filler / 2);
    const body = JSON.stringify({ event: 'e'.repeat(half), source: 's'.repeat(filler - half) });
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    const config = loadConfig({
      WEBHOOK_SECRET: TEST_KEY,
      QUEUE_URL: queues.queueUrl,
      FORWARD_EVENTS: '*',
      MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    });
    const client = sqsClientFor(queues.queueUrl);
    const handler = createHandler(config, { sqsClient: client, now: () => NOW * 1000 });
    const output = captureOutput();

    // Act
    const response = await handler(
      restApiEvent(signedCall(body, { timestamp: NOW })),
      lambdaContext(),
    ).finally(() => output.restore());
    const received = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MessageAttributeNames: ['All'] }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
    expect(received.Messages?.[0]?.Body).toBe(body);
    expect(received.Messages?.[0]?.MessageAttributes?.source?.StringValue).toHaveLength(
      filler - half,
    );
  });
});
