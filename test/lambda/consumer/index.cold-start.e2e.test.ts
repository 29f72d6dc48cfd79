import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../support/api-gateway-events.js';
import { bookingPayload, phpJsonEncode } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { LOCAL_AWS_SETTINGS } from '../../support/local-sqs.js';
import { withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { sqsEvent } from '../../support/sqs-events.js';

const GOOD = phpJsonEncode(bookingPayload());

describe('Module: lambda/consumer/index (cold start)', () => {
  withoutSdkNodeVersionWarning();
  const dynamoDb = useLocalDynamoDb();
  let output: CapturedOutput;
  beforeEach(() => {
    output = captureOutput();
  });
  afterEach(() => {
    output.restore();
    vi.unstubAllEnvs();
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  });

  /** Imports the entry module afresh, as a cold start does. */
  async function coldStart() {
    vi.resetModules();
    return import('../../../lambda/consumer/index.js');
  }

  it('warns once that duplicates are not suppressed when IDEMPOTENCY_TABLE is unset', async () => {
    // Prepare
    vi.stubEnv('IDEMPOTENCY_TABLE', '');
    const event = sqsEvent([{ body: GOOD, attributes: { dedup_key: 'abc' } }]);

    // Act
    const { handler: coldHandler } = await coldStart();
    await coldHandler(event, lambdaContext('webhook-consumer'));
    await coldHandler(event, lambdaContext('webhook-consumer'));

    // Assess
    expect(output.logs().filter(({ level }) => level === 'WARN')).toEqual([
      expect.objectContaining({
        message: 'IDEMPOTENCY_TABLE is not set: duplicate deliveries are not suppressed',
      }),
    ]);
    expect(output.logs().filter(({ message }) => message === 'Booking received')).toHaveLength(2);
  });

  it('processes a booking once when IDEMPOTENCY_TABLE names a table', async () => {
    // Prepare
    const settings = {
      IDEMPOTENCY_TABLE: await dynamoDb().createIdempotencyTable(),
      AWS_ENDPOINT_URL_DYNAMODB: dynamoDb().endpoint,
      AWS_REGION: LOCAL_AWS_SETTINGS.region,
      AWS_ACCESS_KEY_ID: LOCAL_AWS_SETTINGS.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_AWS_SETTINGS.credentials.secretAccessKey,
    };
    for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
    const copy = (messageId: string) =>
      sqsEvent([{ body: GOOD, messageId, attributes: { dedup_key: 'abc' } }]);

    // Act
    const { handler: coldHandler } = await coldStart();
    const first = await coldHandler(copy('m1'), lambdaContext('webhook-consumer'));
    const second = await coldHandler(copy('m2'), lambdaContext('webhook-consumer'));

    // Assess
    expect([first, second]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(output.logs().filter(({ message }) => message === 'Booking received')).toHaveLength(1);
    expect(output.logs().filter(({ level }) => level === 'WARN')).toEqual([]);
  });
});
