import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/send.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { runTool, type ToolRun } from '../devkit/run-tool.js';
import { startLocalReceiverInProcess } from '../support/local-receiver.js';
import { terminalControlsIn } from '../support/terminal-controls.js';

const KEY = 'whsec-send-test-key';

let dir: string;
let receiver: LocalReceiver;
let sqs: SQSClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'send-'));
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  receiver = await startLocalReceiverInProcess(KEY, dir);
  sqs = sqsClientFor(receiver.queues.queueUrl);
});

afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

/** Receives and deletes everything in the queue, returning the bodies. */
async function drainQueue(): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: receiver.queues.queueUrl, MaxNumberOfMessages: 10 }),
    );
    if (Messages.length === 0) return bodies;
    for (const message of Messages) {
      bodies.push(message.Body ?? '');
      await sqs.send(
        new DeleteMessageCommand({
          QueueUrl: receiver.queues.queueUrl,
          ReceiptHandle: message.ReceiptHandle,
        }),
      );
    }
  }
}

/** Runs send in-process against the local receiver. */
function send(args: string[], env: NodeJS.ProcessEnv = { WEBHOOK_SECRET: KEY }): Promise<ToolRun> {
  return runTool(main, ['--url', receiver.webhook.url, ...args], { env, cwd: dir });
}

beforeEach(async () => {
  await drainQueue();
});

describe('Function: main (send)', () => {
  it('delivers a signed event_booked booking that the receiver queues', async () => {
    // Act
    const result = await send([]);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toEqual([
      expect.stringMatching(/^\[1\/1\] booking \d+ \(event_booked\) -> 200 \{"status":"queued"\}$/),
    ]);
    const bodies = await drainQueue();
    expect(bodies).toHaveLength(1);
    const bookingId = /booking (\d+)/.exec(result.out[0] ?? '')?.[1];
    expect(JSON.parse(bodies[0] ?? '')).toMatchObject({
      event: 'event_booked',
      data: { id: bookingId },
    });
  });

  it('sends --count distinct bookings and reports how many were accepted', async () => {
    // Act
    const result = await send(['--count', '3']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out.at(-1)).toBe('3 of 3 calls accepted');
    const ids = (await drainQueue()).map((body) => JSON.parse(body).data.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('sends the bytes of --file exactly, pretty-printed or not', async () => {
    // Prepare
    const body =
      '{\r\n  "event": "event_booked",\r\n  "data": {"id": "42", "cost": "\\u20ac9.90"}\r\n}\r\n';
    await writeFile(join(dir, 'payload.json'), body);

    // Act
    const result = await send(['--file', 'payload.json']);

    // Assess
    expect(result.status).toBe(0);
    expect(await drainQueue()).toEqual([body]);
  });

  it('shows the event and id of a --file (a captured call, say) escaped, never obeyed', async () => {
    // Prepare
    const body = JSON.stringify({ event: 'event_x\r\u009b2K\u202e', data: { id: '4\u001b[8m2' } });
    await writeFile(join(dir, 'captured.json'), body);

    // Act
    const result = await send(['--file', 'captured.json']);

    // Assess
    expect(result.status).toBe(0);
    expect(terminalControlsIn(result.out.join(''))).toEqual([]);
    expect(result.out).toEqual([
      '[1/1] booking 4\\u001b[8m2 (event_x\\u000d\\u009b2K\\u202e) -> 200 {"status":"ignored"}',
    ]);
  });

  it('uses --event as the event name, which the receiver ignores unless FORWARD_EVENTS lists it', async () => {
    // Act
    const result = await send(['--event', 'event_cancelled']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out[0]).toMatch(/\(event_cancelled\) -> 200 \{"status":"ignored"\}$/);
    expect(await drainQueue()).toEqual([]);
  });

  it('exits 1 and shows the 401 when signing with a key the receiver does not have', async () => {
    // Act
    const result = await send([], { WEBHOOK_SECRET: 'some-other-key' });

    // Assess
    expect(result.status).toBe(1);
    expect(result.out[0]).toMatch(/-> 401 /);
    expect(await drainQueue()).toEqual([]);
  });

  it('reads WEBHOOK_SECRET from .env in the working directory when the environment has none', async () => {
    // Prepare
    await writeFile(join(dir, '.env'), `WEBHOOK_SECRET=${KEY}\n`);

    // Act
    const result = await send([], {});

    // Assess
    expect(result.status).toBe(0);
    expect(await drainQueue()).toHaveLength(1);
    await rm(join(dir, '.env'));
  });

  it('signs with the AWSCURRENT key of --secret-id', async () => {
    // Prepare
    const secretsManager = mockClient(SecretsManagerClient);
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: `${KEY}\n` });

    // Act
    const result = await send(['--secret-id', 'webhook-key'], { AWS_REGION: 'eu-west-1' });

    // Assess
    expect(result.status).toBe(0);
    expect(secretsManager.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'webhook-key',
      VersionStage: 'AWSCURRENT',
    });
    expect(await drainQueue()).toHaveLength(1);
    secretsManager.restore();
  });

  it('signs with the key inside a key/value JSON secret, as the receiver reads it', async () => {
    // Prepare
    const secretsManager = mockClient(SecretsManagerClient);
    secretsManager
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ webhook_secret: KEY }) });

    // Act
    const result = await send(['--secret-id', 'webhook-key'], { AWS_REGION: 'eu-west-1' });

    // Assess
    expect(result.status).toBe(0);
    expect(await drainQueue()).toHaveLength(1);
    secretsManager.restore();
  });

  it('exits 3 with a hint when there is no key anywhere', async () => {
    // Act
    const result = await send([], {});

    // Assess
    expect(result.status).toBe(3);
    expect(result.err).toEqual([expect.stringContaining('set WEBHOOK_SECRET')]);
  });

  it('exits 4 with a hint when nothing listens at the URL', async () => {
    // Prepare
    const url = 'http://127.0.0.1:1/webhook';

    // Act
    const result = await send(['--url', url]);

    // Assess
    expect(result.status).toBe(4);
    expect(result.err).toEqual([expect.stringContaining('is npm start running')]);
  });

  it('prints a --url without its password, in failures and usage errors alike', async () => {
    // Act
    const refused = await send(['--url', 'http://user:hunter2@127.0.0.1:1/webhook']);
    const notHttp = await send(['--url', 'ftp://user:hunter2@example.com/webhook']);
    const noScheme = await send(['--url', 'user:hunter2@127.0.0.1:1/webhook']);

    // Assess
    expect(refused.status).toBe(4);
    expect(refused.err).toEqual([
      'POST http://***@127.0.0.1:1/webhook failed: connection refused (is npm start running, and on this port?)',
    ]);
    expect(notHttp.status).toBe(2);
    expect(notHttp.err).toEqual([
      "--url must be an http(s) URL, got 'ftp://***@example.com/webhook' (see npm run send -- --help)",
    ]);
    expect(noScheme.err).toEqual([
      "--url must be an http(s) URL, got '***@127.0.0.1:1/webhook' (see npm run send -- --help)",
    ]);
  });

  it('shows the escape sequences of an argument it refuses, rather than sending them to the terminal', async () => {
    // Act
    const result = await send(['--count', '1\u001b[2J\u0007']);

    // Assess
    expect(result.status).toBe(2);
    expect(result.err).toEqual([
      "--count must be a whole number of at least 1, got '1\\u001b[2J\\u0007' (see npm run send -- --help)",
    ]);
  });

  it.each([
    [['--count', '0'], '--count'],
    [['--count', '2x'], '--count'],
    [['--file', 'payload.json', '--event', 'x'], '--event'],
    [['--url', 'ftp://example.com'], '--url'],
    [['--file', 'missing.json'], 'cannot read --file missing.json (ENOENT)'],
    [['--unknown'], 'Unknown option'],
  ])('exits 2 on the usage error %j', async (args, message) => {
    // Act
    const result = await send(args);

    // Assess
    expect(result.status).toBe(2);
    expect(result.err[0]).toContain(message);
  });

  it('prints the usage with --help', async () => {
    // Act
    const result = await send(['--help']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out[0]).toContain('Usage: npm run send');
  });
});
