import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as smoke } from '../../cli/smoke.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { parseBookingEvent } from '../../lambda/consumer/booking-event.js';
import { processBooking } from '../../lambda/consumer/process-booking.js';
import { runTool } from '../devkit/run-tool.js';
import { captureOutput } from '../support/capture-output.js';
import {
  type CloudWatchLogsServer,
  startCloudWatchLogsServer,
} from '../support/cloudwatch-logs-server.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { makeScratchDir } from '../support/scratch-dir.js';
import { FakeSecretStore } from '../support/secret-store.js';
import { useSecretsManagerServer } from '../support/secrets-manager-server.js';
import { sqsRecord } from '../support/sqs-events.js';
import { bannerValue, ready, type StartedProcess, startProcess } from '../support/start-process.js';
import { terminalControlsIn } from '../support/terminal-controls.js';

const KEY = 'whsec-smoke-4d1f';
const SECRET_ID = 'webhook/smoke';
const LOG_GROUP = '/aws/lambda/WebhookReceiver-Consumer';
const OK_LINE = /^smoke ok: 200 in \d+ ms, queued, seen by (queue|consumer) after \d+ ms$/;

describe('npm run smoke against the local run (webhook, embedded SQS, local Secrets Manager)', () => {
  const secrets = useSecretsManagerServer(new FakeSecretStore(() => new Date()));
  const cloudFormation = mockClient(CloudFormationClient);
  const savedEnv = { ...process.env };
  let cwd: string;
  let logs: CloudWatchLogsServer;
  let started: StartedProcess;
  let webhookUrl: string;
  let queueUrl: string;
  let dlqUrl: string;

  beforeAll(async () => {
    cwd = await makeScratchDir('smoke');
    logs = await startCloudWatchLogsServer();
    secrets().store.put(KEY);
    // The SDK clients read these from the process, as they would a real account's settings;
    // SQS needs none: a loopback queue URL is the embedded queue.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets().endpoint,
      AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logs.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    started = startProcess(cwd, { WEBHOOK_SECRET: KEY });
    const banner = await ready(started);
    webhookUrl = bannerValue(banner, 'Webhook URL');
    queueUrl = bannerValue(banner, 'Queue URL');
    dlqUrl = bannerValue(banner, 'DLQ URL');
  });

  afterEach(async () => {
    cloudFormation.reset();
    await receiveAndDeleteAll(queueUrl);
  });

  afterAll(async () => {
    cloudFormation.restore();
    started?.child.kill('SIGINT');
    await started?.exit;
    await logs?.close();
    for (const name of Object.keys(process.env)) {
      if (!(name in savedEnv)) delete process.env[name];
    }
    Object.assign(process.env, savedEnv);
    await rm(cwd, { recursive: true, force: true });
  });

  /** Runs the tool in-process; network calls time out after 5 s. */
  const run = (args: readonly string[]) => runTool(smoke, args, { cwd, networkTimeoutMs: 5000 });

  /** Answers DescribeStacks for `Bookings` with these outputs. */
  function stackOutputs(outputs: Record<string, string>): void {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'Bookings' }).resolves({
      Stacks: [
        {
          StackName: 'Bookings',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({
            OutputKey,
            OutputValue,
          })),
        },
      ],
    });
  }

  const queueArgs = () => [
    '--url',
    webhookUrl,
    '--secret-id',
    SECRET_ID,
    '--queue-url',
    queueUrl,
    '--timeout',
    '10',
  ];

  it('reports the round trip through the queue and deletes its own message', async () => {
    // Act
    const result = await run(queueArgs());

    // Assess
    expect(result.err).toEqual([]);
    expect(result.status).toBe(0);
    expect(result.out).toEqual([
      `receiver: ${webhookUrl}`,
      `key: AWSCURRENT of ${SECRET_ID}`,
      `waiting in: queue ${queueUrl}`,
      expect.stringMatching(
        /^POST booking \d{17} \(event_booked\) -> 200 \{"status":"queued"\} in \d+ ms$/,
      ),
      expect.stringMatching(/^seen in queue: message \S+, deleted$/),
      expect.stringMatching(OK_LINE),
    ]);
    expect(result.out.at(-1)).toContain('seen by queue');
    expect(await receiveAndDeleteAll(queueUrl)).toEqual([]);
  });

  it('refuses a queue where other messages wait, sending nothing and receiving none of them', async () => {
    // Prepare: three receives each, as if by earlier smoke runs, would bring them close to the
    // dead-letter queue (maxReceiveCount 5)
    const sqs = sqsClientFor(queueUrl);
    const others = ['{"other":1}', '{"other":2}', '{"other":3}'];
    for (const body of others) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    }

    // Act
    const result = await run(queueArgs());

    // Assess
    expect(result.status).toBe(1);
    expect(result.err).toEqual([
      expect.stringMatching(
        /^smoke failed: 3 other message\(s\) wait in .+ nothing was sent: consume them first, or wait in a log group with --log-group$/,
      ),
    ]);
    expect(result.out.some((line) => line.startsWith('POST'))).toBe(false);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        AttributeNames: ['All'],
      }),
    );
    expect(Messages.map((message) => message.Attributes?.ApproximateReceiveCount)).toEqual([
      '1',
      '1',
      '1',
    ]);
    for (const { ReceiptHandle } of Messages) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle }));
    }
    sqs.destroy();
    expect(new Set(Messages.map((message) => message.Body))).toEqual(new Set(others));
  });

  it("reads the stack's outputs and waits in the queue when the stack has no consumer", async () => {
    // Prepare
    stackOutputs({ WebhookUrl: webhookUrl, SecretArn: SECRET_ID, QueueUrl: queueUrl });

    // Act
    const result = await run(['--stack', 'Bookings', '--timeout', '10']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out[0]).toBe('stack Bookings: 3 outputs');
    expect(result.out).toContain(`waiting in: queue ${queueUrl}`);
    expect(result.out.at(-1)).toMatch(OK_LINE);
    expect(result.out.at(-1)).toContain('seen by queue');
    expect(await receiveAndDeleteAll(queueUrl)).toEqual([]);
  });

  it("waits for the example consumer's log line when the stack deploys the consumer", async () => {
    // Prepare
    stackOutputs({
      WebhookUrl: webhookUrl,
      SecretArn: SECRET_ID,
      QueueUrl: queueUrl,
      ConsumerLogGroupName: LOG_GROUP,
    });
    logs.createLogGroup(LOG_GROUP);
    const consumer = runExampleConsumer(queueUrl, logs);

    // Act
    const result = await run(['--stack', 'Bookings', '--timeout', '15']).finally(consumer.stop);

    // Assess
    expect(result.err).toEqual([]);
    expect(result.status).toBe(0);
    expect(result.out).toContain(`waiting in: consumer log group ${LOG_GROUP}`);
    expect(result.out.at(-2)).toMatch(/^seen by consumer: log stream \S+ at \d{4}-/);
    expect(result.out.at(-1)).toMatch(OK_LINE);
    expect(result.out.at(-1)).toContain('seen by consumer');
    const bookingId = /booking (\d{17})/.exec(result.out.join('\n'))?.[1];
    expect(logs.filterPatterns.at(-1)).toBe(`"${bookingId}"`);
  });

  it('exits 1 when the receiver refuses the signature (wrong key in the secret)', async () => {
    // Prepare
    const wrong = new FakeSecretStore(() => new Date());
    wrong.put('whsec-not-the-receivers-key');
    secrets().stores.set('webhook/wrong', wrong);

    // Act
    const result = await run([
      '--url',
      webhookUrl,
      '--secret-id',
      'webhook/wrong',
      '--queue-url',
      queueUrl,
    ]);

    // Assess
    expect(result.status).toBe(1);
    expect(result.out.at(-1)).toMatch(/ -> 401 /);
    expect(result.err).toEqual([
      expect.stringMatching(
        /^smoke failed: the receiver answered 401 in \d+ ms: the signature was refused/,
      ),
    ]);
  });

  it("posts to the endpoint's own URL with --endpoint, and exits 1 on its 404", async () => {
    // Prepare: the local run serves the single endpoint only, so /webhook/eu is not found.
    stackOutputs({ WebhookUrlEu: `${webhookUrl}/eu`, SecretArnEu: SECRET_ID, QueueUrl: queueUrl });

    // Act
    const result = await run(['--stack', 'Bookings', '--endpoint', 'eu']);

    // Assess
    expect(result.status).toBe(1);
    expect(result.out).toContain(`receiver: ${webhookUrl}/eu`);
    expect(result.err).toEqual([
      expect.stringMatching(
        /^smoke failed: the receiver answered 404 in \d+ ms: no endpoint at this path/,
      ),
    ]);
  });

  it('exits 1 when the receiver answers 200 but ignores event_booked (FORWARD_EVENTS)', async () => {
    // Prepare
    const ignoring = startProcess(cwd, {
      WEBHOOK_SECRET: KEY,
      FORWARD_EVENTS: 'event_cancelled',
      LOCAL_STATE_DIR: join(cwd, 'ignoring'),
    });
    try {
      const banner = await ready(ignoring);

      // Act
      const result = await run([
        '--url',
        bannerValue(banner, 'Webhook URL'),
        '--secret-id',
        SECRET_ID,
        '--queue-url',
        bannerValue(banner, 'Queue URL'),
      ]);

      // Assess
      expect(result.status).toBe(1);
      expect(result.err).toEqual([
        'smoke failed: the receiver answered 200 {"status":"ignored"}, not {"status":"queued"}: FORWARD_EVENTS does not forward event_booked, so nothing was queued',
      ]);
    } finally {
      ignoring.child.kill('SIGINT');
      await ignoring.exit;
    }
  });

  it("prints a URL's answer escaped, never obeyed: the server there is not ours", async () => {
    // Prepare: an answer that erases the line and writes a fake success over it.
    const answer = '\u001b[2K\rsmoke ok: 200 in 1 ms, queued, seen by queue after 2 ms\u202e';
    const liar = createServer((_, response) => response.end(answer));
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    const { port } = liar.address() as AddressInfo;

    try {
      // Act
      const result = await run([
        '--url',
        `http://127.0.0.1:${port}/webhook`,
        '--secret-id',
        SECRET_ID,
        '--queue-url',
        queueUrl,
      ]);

      // Assess
      expect(result.status).toBe(1);
      expect(terminalControlsIn([...result.out, ...result.err].join(''))).toEqual([]);
      const shown =
        '\\u001b[2K\\u000dsmoke ok: 200 in 1 ms, queued, seen by queue after 2 ms\\u202e';
      expect(result.out.at(-1)).toMatch(/^POST booking \d+ \(event_booked\) -> 200 /);
      expect(result.out.at(-1)).toContain(` -> 200 ${shown} in `);
      expect(result.err).toEqual([
        `smoke failed: the receiver answered 200 ${shown}, not {"status":"queued"}: FORWARD_EVENTS does not forward event_booked, so nothing was queued`,
      ]);
    } finally {
      await new Promise((resolve) => liar.close(resolve));
    }
  });

  it('exits 4 when nothing listens at the URL', async () => {
    // Prepare
    const closedPort = await freePort();

    // Act
    const result = await run([
      '--url',
      `http://127.0.0.1:${closedPort}/webhook`,
      '--secret-id',
      SECRET_ID,
      '--queue-url',
      queueUrl,
    ]);

    // Assess
    expect(result.status).toBe(4);
    expect(result.err).toEqual([
      `POST http://127.0.0.1:${closedPort}/webhook failed: connection refused (is the receiver running at this URL?)`,
    ]);
  });

  it('prints --url and --queue-url without their passwords', async () => {
    // Prepare
    const closedPort = await freePort();
    const queueWithPassword = queueUrl.replace('http://', 'http://user:hunter2@');

    // Act
    const result = await run([
      '--url',
      `http://user:hunter2@127.0.0.1:${closedPort}/webhook`,
      '--secret-id',
      SECRET_ID,
      '--queue-url',
      queueWithPassword,
    ]);

    // Assess
    expect(result.status).toBe(4);
    expect(result.out.slice(0, 3)).toEqual([
      `receiver: http://***@127.0.0.1:${closedPort}/webhook`,
      `key: AWSCURRENT of ${SECRET_ID}`,
      `waiting in: queue ${queueUrl.replace('http://', 'http://***@')}`,
    ]);
    expect(result.err).toEqual([
      `POST http://***@127.0.0.1:${closedPort}/webhook failed: connection refused (is the receiver running at this URL?)`,
    ]);
  });

  it.each([
    ['the queue', ['--queue-url', 'DLQ'], 'queue '],
    ['the consumer log', ['--log-group', LOG_GROUP], `consumer log group ${LOG_GROUP}`],
  ])('exits 1 after --timeout when the booking never shows up in %s', async (_, watch, where) => {
    // Prepare: the receiver queues to the main queue, so the dead-letter queue never sees it,
    // and no consumer writes the log.
    logs.createLogGroup(LOG_GROUP);
    const args = watch.map((arg) => (arg === 'DLQ' ? dlqUrl : arg));
    const watchesQueue = watch[0] === '--queue-url';
    // Longer in the queue: the other messages must arrive within it, after the POST, seeing the
    // booking queued and two sends that each wait for the journal's flush, which took half of
    // 2 s on a loaded machine.
    const seconds = watchesQueue ? 5 : 2;
    const sqs = sqsClientFor(dlqUrl);
    const putOthers = async () => {
      for (const body of ['{"dead":1}', '{"dead":2}']) {
        await sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
      }
    };
    // A queue holding messages is refused before the POST: these arrive while the smoke waits.
    if (!watchesQueue) await putOthers();
    const startedAt = Date.now();

    // Act
    const timeout = ['--timeout', String(seconds)];
    const running = run(['--url', webhookUrl, '--secret-id', SECRET_ID, ...args, ...timeout]);
    if (watchesQueue) {
      await untilQueued(queueUrl);
      await putOthers();
    }
    const result = await running;
    sqs.destroy();

    // Assess
    expect(result.status).toBe(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(seconds * 1000);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(
      /^smoke failed: 200 in \d+ ms, queued, but booking \d{17} was not seen in /,
    );
    expect(result.err[0]).toContain(`was not seen in ${where}`);
    expect(result.err[0]).toContain(` within ${seconds} s`);
    expect(result.out.some((line) => line.startsWith('smoke ok'))).toBe(false);
    // Polled until --timeout, the smoke received each other message once and held it, instead of
    // counting receives towards the DLQ's next hop: its one receive, the embedded queue counting
    // the release as one more (SQS does not), and this drain's.
    const dead = await receiveAndDeleteAll(dlqUrl);
    expect(dead.map((message) => message.Body).sort()).toEqual(['{"dead":1}', '{"dead":2}']);
    for (const message of dead) {
      const receives = Number(message.Attributes?.ApproximateReceiveCount);
      expect(receives).toBe(watchesQueue ? 3 : 1);
    }
    await receiveAndDeleteAll(queueUrl);
  });

  it('exits 3 when the secret holds no usable key, sending nothing', async () => {
    // Prepare
    const binary = new FakeSecretStore(() => new Date());
    binary.put(new Uint8Array([1, 2, 3]));
    secrets().stores.set('webhook/binary', binary);

    // Act
    const result = await run([
      '--url',
      webhookUrl,
      '--secret-id',
      'webhook/binary',
      '--queue-url',
      queueUrl,
    ]);

    // Assess
    expect(result.status).toBe(3);
    expect(result.err).toEqual([expect.stringContaining('holds only SecretBinary')]);
    expect(result.out.some((line) => line.startsWith('POST'))).toBe(false);
  });

  it.each([
    [['--queue-url', 'http://127.0.0.1:1/q', '--log-group', 'g'], 'not both'],
    [['--timeout', '0'], '--timeout must be a whole number of seconds from 1 to 3600'],
    [['--endpoint', 'EU'], "unknown endpoint 'EU'"],
  ])('exits 2 on the usage error %j without calling anything', async (args, message) => {
    // Act
    const result = await run(args);

    // Assess
    expect(result.status).toBe(2);
    expect(result.err).toEqual([expect.stringContaining(message)]);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(0);
  });

  it('exits 2 naming the endpoints when the stack serves named endpoints and none is given', async () => {
    // Prepare
    stackOutputs({ WebhookUrlEu: `${webhookUrl}/eu`, SecretArnEu: SECRET_ID, QueueUrl: queueUrl });

    // Act
    const result = await run(['--stack', 'Bookings']);

    // Assess
    expect(result.status).toBe(2);
    expect(result.err).toEqual([
      'stack Bookings has no output WebhookUrl: it serves named endpoints (WebhookUrlEu), pass --endpoint NAME (see npm run smoke -- --help)',
    ]);
  });
});

/**
 * The example consumer as Lambda runs it, in miniature: takes each queued message, runs the
 * example's processBooking with a Powertools Logger, and ships what it prints to the log group.
 */
function runExampleConsumer(url: string, logs: CloudWatchLogsServer): { stop: () => void } {
  let running = true;
  const sqs = sqsClientFor(url);
  const logger = new Logger({ serviceName: 'webhook-consumer' });
  void (async () => {
    while (running) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      );
      for (const message of Messages) {
        const attributes = Object.fromEntries(
          Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
            name,
            value.StringValue ?? '',
          ]),
        );
        const record = sqsRecord({
          body: message.Body ?? '',
          messageId: message.MessageId ?? '',
          attributes,
        });
        const parsed = parseBookingEvent(record.body);
        if (!parsed.ok) continue;
        const output = captureOutput();
        try {
          await processBooking(parsed.event, record, logger);
        } finally {
          output.restore();
        }
        for (const line of output.text().split('\n').filter(Boolean)) logs.put(LOG_GROUP, line);
        await sqs.send(
          new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    sqs.destroy();
  })();
  return {
    stop: () => {
      running = false;
    },
  };
}

/** A loopback port nothing listens on. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once a message is in `queueUrl` (the smoke booking the receiver queued). */
async function untilQueued(queueUrl: string): Promise<void> {
  const sqs = sqsClientFor(queueUrl);
  try {
    for (;;) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      if (Number(Attributes.ApproximateNumberOfMessages) > 0) return;
      await sleep(20);
    }
  } finally {
    sqs.destroy();
  }
}
