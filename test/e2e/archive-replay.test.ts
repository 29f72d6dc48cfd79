import { setTimeout as sleep } from 'node:timers/promises';
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main as replay } from '../../cli/replay.js';
import { EXIT_STATUS } from '../../devkit/exit-status.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { loadConsumerConfig } from '../../lambda/consumer/config.js';
import { createConsumerHandler } from '../../lambda/consumer/handler.js';
import { QUEUE_SETTINGS } from '../../lambda/contract/queue-settings.js';
import { MAX_BODY_BYTES_LIMIT } from '../../lambda/contract/settings.js';
import { loadConfig } from '../../lambda/receiver/config.js';
import { ARCHIVE_CLIENT_SETTINGS, createHandler } from '../../lambda/receiver/handler.js';
import type { LocalArchive } from '../../local/local-archive.js';
import { type LocalQueues, startLocalQueues } from '../../local/local-queues.js';
import { runTool } from '../devkit/run-tool.js';
import { httpApiEvent, lambdaContext } from '../support/api-gateway-events.js';
import { bookingPayload, signedCall, TEST_KEY } from '../support/booking.js';
import { captureOutput } from '../support/capture-output.js';
import { startTestArchive } from '../support/local-archive.js';
import { useLocalDynamoDb } from '../support/local-dynamodb.js';
import { LOCAL_AWS_SETTINGS } from '../support/local-sqs.js';
import { refusingEndpoint } from '../support/refusing-endpoint.js';
import { scratchDir } from '../support/scratch-dir.js';
import { startSilentEndpoint } from '../support/silent-endpoint.js';
import { sqsRecord } from '../support/sqs-events.js';
import { terminalControlsIn } from '../support/terminal-controls.js';

const stateDir = scratchDir('archive-replay');

/**
 * The receiver as `npm start` wires it (embedded queue, local archive through the Firehose
 * stand-in), the example consumer with idempotency over an embedded DynamoDB, and the replay
 * tool pointed at both through LOCAL_SQS_PORT and LOCAL_S3_PORT.
 */
describe('npm run replay against the local run', () => {
  const dynamoDb = useLocalDynamoDb();
  let queues: LocalQueues;
  let archive: LocalArchive;
  let receiver: ReturnType<typeof createHandler>;
  let env: NodeJS.ProcessEnv;
  const sqs = () => sqsClientFor(queues.queueUrl);

  /** The receiver on the embedded queue and the local archive, with `settings` added. */
  const receiverWith = (settings: Record<string, string> = {}) =>
    createHandler(
      loadConfig({
        WEBHOOK_SECRET: TEST_KEY,
        QUEUE_URL: queues.queueUrl,
        ARCHIVE_STREAM: archive.stream,
        POWERTOOLS_METRICS_DISABLED: 'true',
        ...settings,
      }),
      {
        sqsClient: sqs(),
        firehoseClient: new FirehoseClient({
          ...LOCAL_AWS_SETTINGS,
          ...ARCHIVE_CLIENT_SETTINGS,
          endpoint: archive.endpoint,
          credentials: archive.credentials,
        }),
      },
    );

  beforeAll(async () => {
    queues = await startLocalQueues({ port: 0 });
    archive = await startTestArchive(stateDir());
    receiver = receiverWith();
    env = {
      LOCAL_SQS_PORT: String(queues.port),
      LOCAL_S3_PORT: String(archive.port),
      LOCAL_STATE_DIR: stateDir(),
    };
  });
  afterAll(async () => {
    await archive.close();
    await queues.shutdown();
  });

  let applied: string[];
  let consume: (messages: readonly Message[]) => Promise<void>;
  beforeEach(async () => {
    const tableName = await dynamoDb().createIdempotencyTable();
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamoDb().endpoint);
    vi.stubEnv('AWS_REGION', LOCAL_AWS_SETTINGS.region);
    vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_AWS_SETTINGS.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_AWS_SETTINGS.credentials.secretAccessKey);
    applied = [];
    const consumer = createConsumerHandler(
      loadConsumerConfig({ IDEMPOTENCY_TABLE: tableName }),
      async (booking) => {
        applied.push(booking.data.id);
      },
    );
    consume = async (messages) => {
      const output = captureOutput();
      try {
        const records = messages.map((message) =>
          sqsRecord({
            body: message.Body ?? '',
            attributes: Object.fromEntries(
              Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
                name,
                value.StringValue ?? '',
              ]),
            ),
          }),
        );
        const answer = await consumer({ Records: records }, lambdaContext('webhook-consumer'));
        expect(answer).toEqual({ batchItemFailures: [] });
      } finally {
        output.restore();
      }
    };
    return () => vi.unstubAllEnvs();
  });

  /** Sends one signed booking through the receiver; its body. */
  async function deliver(id: string): Promise<string> {
    return deliverBody(JSON.stringify(bookingPayload({ data: { ...bookingData(), id } })));
  }

  /** Sends one signed body through `through` (the receiver by default); the body. */
  async function deliverBody(body: string, through = receiver): Promise<string> {
    const output = captureOutput();
    try {
      const response = await through(
        httpApiEvent(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) })),
        lambdaContext(),
      );
      expect(response.statusCode).toBe(200);
    } finally {
      output.restore();
    }
    // In the bucket now rather than at the end of the stand-in's buffer interval.
    await archive.flush();
    // Receipt times a few milliseconds apart, so window edges fall between deliveries.
    await sleep(5);
    return body;
  }

  /** `replay --dry-run` over `from` to `to`, against the local run. */
  const dryRun = (from: Date, to: Date) =>
    runTool(replay, ['--from', from.toISOString(), '--to', to.toISOString(), '--dry-run'], {
      env,
    });

  /** Receives and deletes every message on the queue. */
  async function drain(): Promise<Message[]> {
    const client = sqs();
    const all: Message[] = [];
    for (;;) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queues.queueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) break;
      for (const message of Messages) {
        all.push(message);
        await client.send(
          new DeleteMessageCommand({
            QueueUrl: queues.queueUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
      }
    }
    client.destroy();
    return all;
  }

  it('re-queues exactly the deliveries of the window, oldest first, and the consumer applies none twice', async () => {
    // Prepare: four deliveries, the middle two inside the window, all applied once.
    await deliver('9001');
    const from = new Date();
    const inside = [await deliver('9002'), await deliver('9003')];
    const to = new Date();
    await deliver('9004');
    const original = await drain();
    await consume(original);
    // A standard queue does not keep order: compare as sets.
    expect(applied.sort()).toEqual(['9001', '9002', '9003', '9004']);

    // Act
    const run = await runTool(replay, ['--from', from.toISOString(), '--to', to.toISOString()], {
      env,
    });

    // Assess
    expect(run.status).toBe(0);
    expect(run.out.at(-1)).toBe('replayed 2 of 2 deliveries');
    const replayed = await drain();
    expect(replayed.map((message) => message.Body).sort()).toEqual([...inside].sort());
    const attributes = (body: string) => {
      const message = [...original, ...replayed].filter((candidate) => candidate.Body === body);
      return message.map((copy) =>
        Object.fromEntries(
          Object.entries(copy.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            [value.DataType, value.StringValue],
          ]),
        ),
      );
    };
    for (const body of inside) {
      const [first, again] = attributes(body);
      expect(first).toHaveProperty('dedup_key');
      expect(again).toEqual(first);
    }
    await consume(replayed);
    expect(applied.sort()).toEqual(['9001', '9002', '9003', '9004']);
    expect([...run.out, ...run.err].join('\n')).not.toContain('9002');
  });

  it('reports and skips the delivery the queue refuses as too large, sends the other four and exits 1', async () => {
    // Prepare: five deliveries, the third with a note that makes it larger than the queue then takes.
    const from = new Date();
    const small = [await deliver('9401'), await deliver('9402')];
    const large = await deliverBody(
      JSON.stringify(
        bookingPayload({ data: { ...bookingData(), id: '9403', note: 'n'.repeat(3000) } }),
      ),
    );
    small.push(await deliver('9404'), await deliver('9405'));
    const to = new Date();
    await drain();
    const setMaximumSize = async (bytes: number) => {
      const client = sqs();
      await client.send(
        new SetQueueAttributesCommand({
          QueueUrl: queues.queueUrl,
          Attributes: { MaximumMessageSize: String(bytes) },
        }),
      );
      client.destroy();
    };
    await setMaximumSize(2048);

    try {
      // Act
      const run = await runTool(replay, ['--from', from.toISOString(), '--to', to.toISOString()], {
        env,
      });

      // Assess
      expect(run.status).toBe(EXIT_STATUS.refused);
      expect(run.out).toEqual(['replayed 4 of 5 deliveries']);
      expect(run.err).toEqual([
        expect.stringMatching(
          /^the queue refused the delivery \S+ in deliveries\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/\S+, skipped: InvalidParameterValue: .*Message must be shorter than 2048 bytes\.$/,
        ),
        '1 of 5 deliveries refused by the queue (listed above); the others were sent',
      ]);
      expect(run.err.join('\n')).not.toContain('nnnnnnnn');
      expect((await drain()).map((message) => message.Body).sort()).toEqual([...small].sort());
      expect(large.length).toBeGreaterThan(2048);
    } finally {
      await setMaximumSize(QUEUE_SETTINGS.maxMessageSizeBytes);
    }
  });

  it('lists what it would send with --dry-run, oldest first, and sends nothing', async () => {
    // Prepare
    const from = new Date();
    await deliver('9101');
    await deliver('9102');
    const to = new Date();
    await drain();

    // Act
    const run = await dryRun(from, to);

    // Assess
    expect(run.status).toBe(0);
    expect(run.out).toHaveLength(3);
    const times = run.out.slice(0, 2).map((line) => {
      expect(line).toMatch(/^\S+ \| event event_booked \| dedup_key [0-9a-f]{64}$/);
      return Date.parse(line.split(' ')[0] ?? '');
    });
    expect(times[0]).toBeLessThan(times[1] ?? 0);
    expect(run.out[2]).toMatch(/^replayed 0 of 2 deliveries \(--dry-run/);
    expect(await drain()).toEqual([]);
  });

  it("lists a delivery's event with its carriage return, C1 CSI and bidi override escaped under --dry-run", async () => {
    // Prepare: any event is queued and archived with FORWARD_EVENTS=*, and these characters are
    // ones SQS takes in an attribute.
    const from = new Date();
    await deliverBody(
      JSON.stringify({ event: 'event_x\r\u009b2K\u202efake', data: { id: '9301' } }),
      receiverWith({ FORWARD_EVENTS: '*' }),
    );
    const to = new Date();
    await drain();

    // Act
    const run = await dryRun(from, to);

    // Assess
    expect(run.status).toBe(0);
    expect(terminalControlsIn([...run.out, ...run.err].join(''))).toEqual([]);
    expect(run.out[0]).toMatch(
      /^\S+ \| event event_x\\u000d\\u009b2K\\u202efake \| dedup_key [0-9a-f]{64}$/,
    );
  });

  it('says how far it got after each page of a listing of more than 1,000 objects', async () => {
    // Prepare: 1,001 objects in an hour long before this run's deliveries.
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    for (let index = 0; index <= 1000; index++) {
      await s3.send(
        new PutObjectCommand({
          Bucket: archive.bucket,
          Key: `deliveries/2026/01/02/15/filler-${String(index).padStart(4, '0')}`,
          Body: '',
          // Given: the SDK warns of a stream of unknown length for an empty body.
          ContentLength: 0,
        }),
      );
    }
    s3.destroy();
    const window = { from: '2026-01-01T00:00:00Z', to: '2026-01-06T00:00:00Z' };

    // Act
    const run = await runTool(replay, ['--from', window.from, '--to', window.to, '--dry-run'], {
      env,
    });

    // Assess
    expect(run.status).toBe(0);
    expect(run.err).toEqual([
      'listed 1000 archive objects so far',
      'read 100 of 1001 archive objects',
      'read 200 of 1001 archive objects',
      'read 300 of 1001 archive objects',
      'read 400 of 1001 archive objects',
      'read 500 of 1001 archive objects',
      'read 600 of 1001 archive objects',
      'read 700 of 1001 archive objects',
      'read 800 of 1001 archive objects',
      'read 900 of 1001 archive objects',
      'read 1000 of 1001 archive objects',
    ]);
    expect(run.out).toEqual([expect.stringMatching(/^replayed 0 of 0 deliveries \(--dry-run/)]);
  }, 60_000);

  it('skips a queued delivery whose archived body was cut to fit Firehose, saying so, and replays the rest', async () => {
    // Prepare: a body at MAX_BODY_BYTES' maximum whose event and source fill it (see archiveLine),
    // then a booking.
    const from = new Date();
    const filler = MAX_BODY_BYTES_LIMIT - JSON.stringify({ event: '', source: '' }).length;
    const half = Math.floor(filler / 2);
    await deliverBody(
      JSON.stringify({ event: 'e'.repeat(half), source: 's'.repeat(filler - half) }),
      receiverWith({ FORWARD_EVENTS: '*', MAX_BODY_BYTES: String(MAX_BODY_BYTES_LIMIT) }),
    );
    const booking = await deliver('9201');
    const to = new Date();
    await drain();

    // Act
    const run = await runTool(replay, ['--from', from.toISOString(), '--to', to.toISOString()], {
      env,
    });

    // Assess
    expect(run.status).toBe(0);
    expect(run.err).toContain(
      "skipped 1 queued delivery whose archived body is cut short (a record over Firehose's limit keeps only the start of its body): not replayable",
    );
    expect(run.out.at(-1)).toBe('replayed 1 of 1 deliveries');
    expect((await drain()).map((message) => message.Body)).toEqual([booking]);
  });

  it.each([
    [
      ['--from', '2026-11-27T10:00:00', '--to', '2026-11-27T11:00:00Z'],
      /--from must be an ISO 8601 time with a zone/,
    ],
    [
      ['--from', '2026-11-27T10:00:00Z', '--to', '2026-11-27T09:00:00Z'],
      /--to must be after --from/,
    ],
    [['--to', '2026-11-27T09:00:00Z'], /--from is required/],
    [
      ['--from', '1970-01-01T00:00:00Z', '--to', '2100-01-01T00:00:00Z', '--dry-run'],
      /^a window of 47482 days is longer than any archive keeps: at most 3654 days \(the most archiveDays allows, and a day for S3's expiry\) plus Firehose's 5-minute buffer \(see npm run replay -- --help\)$/,
    ],
    [
      ['--from', '0000-01-01T00:00:00Z', '--to', '9999-12-31T00:00:00Z', '--dry-run'],
      /^a window of 3652424 days is longer than any archive keeps/,
    ],
    [
      ['--from', '2026-02-30T00:00:00Z', '--to', '2026-03-03T00:00:00Z'],
      /^--from must be a real time, got '2026-02-30T00:00:00Z': 2026-02 has days 01 to 28 /,
    ],
  ])('refuses %j with exit status 2', async (args, message) => {
    // Act
    const run = await runTool(replay, args, { env });

    // Assess
    expect(run.status).toBe(2);
    expect(run.err.join('\n')).toMatch(message);
  });

  it('exits 1 asking for a region when --stack is given without one', async () => {
    // Prepare
    vi.stubEnv('AWS_REGION', undefined);
    vi.stubEnv('AWS_DEFAULT_REGION', undefined);
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/aws-config');

    // Act
    const run = await runTool(
      replay,
      ['--from', '2026-11-27T00:00:00Z', '--to', '2026-11-27T01:00:00Z', '--stack', 'Bookings'],
      { env },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.err).toEqual([
      'no AWS region: set AWS_REGION (or a profile with a region in AWS_PROFILE) for --stack',
    ]);
    expect(run.out).toEqual([]);
  });

  it('exits 4 (network) naming npm start when no local archive answers', async () => {
    // Prepare
    const port = new URL(await refusingEndpoint()).port;

    // Act
    const run = await runTool(
      replay,
      ['--from', '2026-11-27T00:00:00Z', '--to', '2026-11-27T01:00:00Z'],
      { env: { ...env, LOCAL_S3_PORT: port } },
    );

    // Assess
    expect(run.status).toBe(EXIT_STATUS.network);
    expect(run.err.join('\n')).toMatch(
      /connection refused \(start the local receiver with npm start/,
    );
    expect(run.out).toEqual([]);
  });

  it('exits 4 (network) within the timeout when the archive accepts and never answers', async () => {
    // Prepare
    const silent = await startSilentEndpoint();

    try {
      // Act
      const started = Date.now();
      const run = await runTool(
        replay,
        ['--from', '2026-11-27T00:00:00Z', '--to', '2026-11-27T01:00:00Z'],
        { env: { ...env, LOCAL_S3_PORT: new URL(silent.url).port }, networkTimeoutMs: 300 },
      );

      // Assess
      expect(run.status).toBe(EXIT_STATUS.network);
      expect(run.err).toEqual([
        `Could not read the archive webhook-archive: no answer within 0.3 s`,
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await silent.close();
    }
  });
});

/** The `data` of the test booking, for a copy with another id. */
function bookingData(): Record<string, unknown> {
  return (bookingPayload() as { data: Record<string, unknown> }).data;
}
