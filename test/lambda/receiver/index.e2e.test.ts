import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext, restApiEvent } from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall, TEST_KEY } from '../../support/booking.js';
import { captureOutput } from '../../support/capture-output.js';
import { type LocalSqs, startLocalSqs } from '../../support/local-sqs.js';

/** Imports the entry module afresh, as a cold start does. */
async function coldStart() {
  vi.resetModules();
  return import('../../../lambda/receiver/index.js');
}

describe('Module: lambda/receiver/index', () => {
  let sqs: LocalSqs;
  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await sqs.close();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fails the cold start with a ConfigError naming QUEUE_URL when it is not set', async () => {
    // Prepare
    vi.stubEnv('WEBHOOK_SECRET', TEST_KEY);
    vi.stubEnv('QUEUE_URL', '');

    // Act
    const loading = coldStart();

    // Assess
    await expect(loading).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('QUEUE_URL'),
    });
  });

  it('reads its configuration from the environment and sends through AWS_ENDPOINT_URL_SQS', async () => {
    // Prepare
    const queueUrl = await sqs.createQueue(`entry-${process.pid}`);
    for (const [name, value] of Object.entries({
      WEBHOOK_SECRET: TEST_KEY,
      QUEUE_URL: queueUrl,
      AWS_ENDPOINT_URL_SQS: sqs.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    })) {
      vi.stubEnv(name, value);
    }
    const { handler } = await coldStart();
    const body = JSON.stringify(bookingPayload());
    const output = captureOutput();

    // Act
    const response = await handler(
      restApiEvent(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) })),
      lambdaContext(),
    );
    output.restore();

    // Assess
    expect(response.statusCode).toBe(200);
    expect((await sqs.receiveAll(queueUrl)).map((message) => message.Body)).toEqual([body]);
  });
});
