import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDEMPOTENCY_WRITE_REQUESTS } from '../../../bench/cost-model.js';
import { loadConsumerConfig } from '../../../lambda/consumer/config.js';
import { type ConsumerHandler, createConsumerHandler } from '../../../lambda/consumer/handler.js';
import type { ProcessBooking } from '../../../lambda/consumer/process-booking.js';
import { lambdaContext } from '../../support/api-gateway-events.js';
import { bookingPayload, phpJsonEncode } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { useLocalDynamoDb } from '../../support/local-dynamodb.js';
import { LOCAL_AWS_SETTINGS } from '../../support/local-sqs.js';
import { withoutSdkNodeVersionWarning } from '../../support/log-lines.js';
import { type SqsRecordInput, sqsEvent } from '../../support/sqs-events.js';

const FIFO_ARN = 'arn:aws:sqs:eu-west-1:123456789012:webhook-events.fifo';
const BOOKING = phpJsonEncode(bookingPayload());

/** The calls `processBooking` received (their message ids), and a way to make it fail or wait. */
interface RecordingProcess {
  readonly process: ProcessBooking;
  readonly calls: string[];
}

function recordingProcess(
  behaviour: (record: SQSRecord) => Promise<void> = async () => undefined,
): RecordingProcess {
  const calls: string[] = [];
  return {
    calls,
    process: async (_booking, record) => {
      calls.push(record.messageId);
      await behaviour(record);
    },
  };
}

/** How the receiver marks one delivery on each kind of queue. */
const QUEUES = [
  {
    kind: 'standard',
    copy: (dedupKey: string, messageId: string): SqsRecordInput => ({
      body: BOOKING,
      messageId,
      attributes: { event: 'event_booked', dedup_key: dedupKey },
    }),
  },
  {
    kind: 'FIFO',
    copy: (dedupKey: string, messageId: string): SqsRecordInput => ({
      body: BOOKING,
      messageId,
      queueArn: FIFO_ARN,
      messageGroupId: '918273',
      messageDeduplicationId: dedupKey,
      attributes: { event: 'event_booked' },
    }),
  },
] as const;

describe('Function: createConsumerHandler (idempotency on DynamoDB)', () => {
  withoutSdkNodeVersionWarning();
  const dynamoDb = useLocalDynamoDb();
  let output: CapturedOutput;
  let tableName: string;

  beforeEach(async () => {
    tableName = await dynamoDb().createIdempotencyTable();
    dynamoDb().resetRequests();
    // The persistence layer builds its client from the SDK's usual settings, as in Lambda.
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamoDb().endpoint);
    vi.stubEnv('AWS_REGION', LOCAL_AWS_SETTINGS.region);
    vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_AWS_SETTINGS.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_AWS_SETTINGS.credentials.secretAccessKey);
    output = captureOutput();
  });
  afterEach(() => {
    output.restore();
    vi.useRealTimers();
    vi.unstubAllEnvs();
    // withoutSdkNodeVersionWarning's stub is undone above; keep it for the rest of the block.
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  });

  function consumer(process: ProcessBooking, env: Record<string, string> = {}): ConsumerHandler {
    return createConsumerHandler(
      loadConsumerConfig({ IDEMPOTENCY_TABLE: tableName, ...env }),
      process,
    );
  }

  const invoke = (handler: ConsumerHandler, records: SqsRecordInput[]) =>
    handler(sqsEvent(records), lambdaContext('webhook-consumer'));

  describe.each(QUEUES)('on a $kind queue', ({ copy }) => {
    it('processes a booking delivered in two batches once and acknowledges the copy', async () => {
      // Prepare
      const { process, calls } = recordingProcess();
      const handler = consumer(process);
      const dedupKey = randomUUID();

      // Act
      const first = await invoke(handler, [copy(dedupKey, 'm1')]);
      const second = await invoke(handler, [copy(dedupKey, 'm2')]);

      // Assess
      expect(first).toEqual({ batchItemFailures: [] });
      expect(second).toEqual({ batchItemFailures: [] });
      expect(calls).toEqual(['m1']);
      expect(output.logs()).toContainEqual(
        expect.objectContaining({
          message: 'Duplicate acknowledged without processing',
          dedup_key: dedupKey,
          message_id: 'm2',
        }),
      );
      expect(output.metricValues()).toEqual([
        { name: 'DuplicateSkipped', value: 1, dimensions: { service: 'webhook-consumer' } },
      ]);
    });

    it('processes two copies in one batch once and acknowledges both', async () => {
      // Prepare
      const { process, calls } = recordingProcess();
      const dedupKey = randomUUID();

      // Act
      const response = await invoke(consumer(process), [
        copy(dedupKey, 'm1'),
        copy(dedupKey, 'm2'),
      ]);

      // Assess
      expect(response).toEqual({ batchItemFailures: [] });
      expect(calls).toEqual(['m1']);
    });

    it('processes the retry when processBooking failed, leaving no record behind', async () => {
      // Prepare
      let failures = 1;
      const { process, calls } = recordingProcess(async () => {
        if (failures-- > 0) throw new Error('booking system unavailable');
      });
      const handler = consumer(process);
      const dedupKey = randomUUID();

      // Act
      const failed = await invoke(handler, [copy(dedupKey, 'm1')]);
      const retried = await invoke(handler, [copy(dedupKey, 'm1')]);
      const copied = await invoke(handler, [copy(dedupKey, 'm2')]);

      // Assess
      expect(failed).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
      expect(retried).toEqual({ batchItemFailures: [] });
      expect(copied).toEqual({ batchItemFailures: [] });
      expect(calls).toEqual(['m1', 'm1']);
    });

    it('processes a copy again once its record has expired', async () => {
      // Prepare
      const { process, calls } = recordingProcess();
      const handler = consumer(process, { IDEMPOTENCY_TTL_SECONDS: '3600' });
      const dedupKey = randomUUID();
      vi.useFakeTimers({ toFake: ['Date'] });
      await invoke(handler, [copy(dedupKey, 'm1')]);

      // Act: DynamoDB may keep an expired item for days; the utility treats it as gone.
      vi.setSystemTime(Date.now() + 3601 * 1000);
      const response = await invoke(handler, [copy(dedupKey, 'm2')]);

      // Assess
      expect(response).toEqual({ batchItemFailures: [] });
      expect(calls).toEqual(['m1', 'm2']);
    });
  });

  it('reports a copy that arrives while the first is in progress, then acknowledges its redelivery', async () => {
    // Prepare: the first invocation holds processBooking until released
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const { process, calls } = recordingProcess(async (record) => {
      if (record.messageId === 'm1') {
        entered();
        await held;
      }
    });
    const [{ copy }] = QUEUES;
    const dedupKey = randomUUID();
    const firstInstance = consumer(process);
    const secondInstance = consumer(process);
    const first = invoke(firstInstance, [copy(dedupKey, 'm1')]);
    await started;

    // Act
    const concurrent = await invoke(secondInstance, [copy(dedupKey, 'm2')]);
    release();
    const firstResponse = await first;
    const redelivered = await invoke(secondInstance, [copy(dedupKey, 'm2')]);

    // Assess
    expect(concurrent).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(firstResponse).toEqual({ batchItemFailures: [] });
    expect(redelivered).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual(['m1']);
    expect(output.logs()).toContainEqual(
      expect.objectContaining({
        message: 'Another attempt at this booking is in progress; SQS will redeliver the copy',
        message_id: 'm2',
      }),
    );
  });

  it('treats the same dedup_key for two endpoints as two deliveries', async () => {
    // Prepare
    const { process, calls } = recordingProcess();
    const dedupKey = randomUUID();
    const forEndpoint = (endpoint: string, messageId: string): SqsRecordInput => ({
      body: BOOKING,
      messageId,
      attributes: { dedup_key: dedupKey, endpoint },
    });

    // Act
    const response = await invoke(consumer(process), [
      forEndpoint('bookings-eu', 'm1'),
      forEndpoint('bookings-us', 'm2'),
      forEndpoint('bookings-eu', 'm3'),
    ]);

    // Assess: records of a standard batch run in parallel, in no set order
    expect(response).toEqual({ batchItemFailures: [] });
    expect(calls.toSorted()).toEqual(['m1', 'm2']);
  });

  it('processes every copy of a message without a dedup key, without touching the table', async () => {
    // Prepare
    const { process, calls } = recordingProcess();

    // Act
    const response = await invoke(consumer(process), [
      { body: BOOKING, messageId: 'm1' },
      { body: BOOKING, messageId: 'm2' },
    ]);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(calls.toSorted()).toEqual(['m1', 'm2']);
    expect(dynamoDb().requests()).toEqual({});
  });

  it('sends two writes per processed booking and one conditional write per copy', async () => {
    // Prepare
    const [{ copy }] = QUEUES;
    const handler = consumer(recordingProcess().process);
    const bookings = Array.from({ length: 5 }, () => randomUUID());

    // Act
    await invoke(
      handler,
      bookings.map((dedupKey, index) => copy(dedupKey, `m${index}`)),
    );
    const perProcessed = dynamoDb().requests();
    dynamoDb().resetRequests();
    await invoke(
      handler,
      bookings.map((dedupKey, index) => copy(dedupKey, `c${index}`)),
    );
    const perCopy = dynamoDb().requests();

    // Assess: PutItem (in progress, conditional) then UpdateItem (completed), per booking. A copy
    // fails the conditional PutItem. DynamoDB returns the stored item with that failure
    // (ReturnValuesOnConditionCheckFailure); dynalite does not, so the utility reads it with a
    // GetItem that DynamoDB itself never receives.
    expect(perProcessed).toEqual({ PutItem: 5, UpdateItem: 5 });
    expect(perCopy).toEqual({ PutItem: 5, GetItem: 5 });
    // The figures `npm run bench -- cost` prices
    expect(IDEMPOTENCY_WRITE_REQUESTS).toEqual({
      processed: ((perProcessed.PutItem ?? 0) + (perProcessed.UpdateItem ?? 0)) / bookings.length,
      suppressedCopy: (perCopy.PutItem ?? 0) / bookings.length,
    });
  });

  it('keeps each record under 1 KB, so every write is one write request unit', async () => {
    // Prepare
    const [{ copy }] = QUEUES;
    vi.stubEnv(
      'AWS_LAMBDA_FUNCTION_NAME',
      'WebhookReceiver-ReceiverConsumer0123456789-AbCdEfGhIjKl',
    );

    // Act
    await invoke(consumer(recordingProcess().process), [copy(randomUUID(), 'm1')]);

    // Assess: the JSON wire form (type tags, quotes) is larger than DynamoDB's item size
    const { Items } = await dynamoDb().client.send(new ScanCommand({ TableName: tableName }));
    expect(Items).toHaveLength(1);
    expect(Items?.[0]).toMatchObject({
      status: { S: 'COMPLETED' },
      expiration: { N: expect.any(String) },
    });
    expect(JSON.stringify(Items?.[0]).length).toBeLessThan(1024);
  });

  it('sends a PutItem and a DeleteItem for a booking whose processing failed', async () => {
    // Prepare
    const [{ copy }] = QUEUES;
    const { process } = recordingProcess(async () => {
      throw new Error('booking system unavailable');
    });

    // Act
    await invoke(consumer(process), [copy(randomUUID(), 'm1')]);

    // Assess
    expect(dynamoDb().requests()).toEqual({ PutItem: 1, DeleteItem: 1 });
  });

  it('processes every copy and warns once at creation when IDEMPOTENCY_TABLE is unset', async () => {
    // Prepare
    const { process, calls } = recordingProcess();
    const [{ copy }] = QUEUES;
    const dedupKey = randomUUID();
    const handler = createConsumerHandler(loadConsumerConfig({}), process);

    // Act
    await invoke(handler, [copy(dedupKey, 'm1')]);
    await invoke(handler, [copy(dedupKey, 'm2')]);

    // Assess
    expect(calls).toEqual(['m1', 'm2']);
    expect(
      output.logs().filter(({ message }) => String(message).includes('IDEMPOTENCY_TABLE')),
    ).toEqual([
      expect.objectContaining({
        level: 'WARN',
        message: 'IDEMPOTENCY_TABLE is not set: duplicate deliveries are not suppressed',
      }),
    ]);
    expect(dynamoDb().requests()).toEqual({});
  });
});
