import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerValue } from '../../devkit/local-process.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { main } from '../../loadtest/run.js';
import { closeServer, listen } from '../../local/net.js';
import { runTool } from '../devkit/run-tool.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { bannerPort, killNpmStartsAfterEach, spawnNpmStart } from '../support/npm-start.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('loadtest-run');

killNpmStartsAfterEach();

describe('Tool: npm run loadtest', () => {
  it('warms npm start up, sends 600 timed calls at 20 connections, pairs every queued answer with one message, and stops the child', async () => {
    // Act
    const run = await runTool(
      main,
      ['--requests', '600', '--concurrency', '20', '--warm-up', '1'],
      { env: { ...process.env } },
    );

    // Assess
    const out = run.out.join('\n');
    expect(run.err).toEqual([]);
    expect(run.status).toBe(0);
    expect(out).toContain('Load test: 600 of 600 requests sent');
    const warmUpCalls = Number(
      /^Warm-up: (\d+) calls of the same mix in \d+\.\d s/m.exec(out)?.[1],
    );
    expect(warmUpCalls).toBeGreaterThan(0);
    // Every call of each kind, warm-up included, got the contract's answer and no other.
    expect(out).toMatch(/^valid +(\d+) +200 queued +\1 +0 +0 +0$/m);
    expect(out).toMatch(/^replayed +(\d+) +200 queued +\1 +0 +0 +0$/m);
    expect(out).toMatch(/^forged +(\d+) +401 +0 +0 +\1 +0$/m);
    expect(out).toMatch(/^stale +(\d+) +401 +0 +0 +\1 +0$/m);
    expect(out).toMatch(/^oversized +(\d+) +413 +0 +0 +0 +\1$/m);
    expect(out).toMatch(/^ignored +(\d+) +200 ignored +0 +\1 +0 +0$/m);
    const total = /^total +(\d+) +(\d+) +(\d+) +\d+ +\d+$/m.exec(out);
    expect(Number(total?.[1])).toBe(600 + warmUpCalls);
    const [queued, ignored] = [Number(total?.[2]), Number(total?.[3])];
    expect(out).toContain(`Queue: ${queued} messages of this run drained, ${queued} paired`);
    expect(out).toContain(
      `Archive: ${queued + ignored} of ${queued + ignored} calls answered 200 have their record`,
    );
    expect(out).toContain('PASS:');
    const webhookUrl = /Sending 600 calls to (\S+)/.exec(out)?.[1] ?? '';
    await expect(fetch(webhookUrl, { method: 'POST' })).rejects.toThrow();
    // A tsx start of npm start plus 1 s of warm-up and 600 calls on two cores busy with the rest
    // of npm test.
  }, 120_000);

  describe('against a receiver that acknowledges everything and stores nothing', () => {
    let liar: Server;
    let url: string;
    let calls = 0;

    beforeAll(async () => {
      liar = createServer((request, response) => {
        calls += 1;
        request.resume();
        request.on('end', () => response.end('{"status":"queued"}'));
      });
      url = `http://127.0.0.1:${await listen(liar, 0, '127.0.0.1')}/webhook`;
    });
    afterAll(async () => {
      await closeServer(liar);
    });

    it('fails, naming each broken rule', async () => {
      // Act: no archive answers on port 1
      const run = await runTool(main, ['--requests', '40', '--warm-up', '0', '--url', url], {
        env: { WEBHOOK_SECRET: 'whsec-loadtest', LOCAL_S3_PORT: '1' },
      });

      // Assess
      const out = run.out.join('\n');
      expect(run.status).toBe(1);
      expect(out).toContain('FAIL:');
      expect(out).toContain('6 forged requests answered 200 queued (contract: 401)');
      expect(out).toContain('4 stale requests answered 200 queued (contract: 401)');
      expect(out).toContain('2 oversized requests answered 200 queued (contract: 413)');
      expect(out).toContain('4 ignored requests answered 200 queued (contract: 200 ignored)');
      expect(out).toContain('the archive could not be read (http://127.0.0.1:1/webhook-archive:');
    });

    it('sends nothing when the --queue-url whose depth it reports cannot be read', async () => {
      // Prepare
      const before = calls;

      // Act: no queue answers on port 1
      const run = await runTool(
        main,
        [
          '--requests',
          '40',
          '--warm-up',
          '0',
          '--url',
          url,
          '--queue-url',
          'http://127.0.0.1:1/123456789012/q',
        ],
        { env: { WEBHOOK_SECRET: 'whsec-loadtest' } },
      );

      // Assess
      expect(run.status).toBe(1);
      expect(run.err.join('\n')).toContain(
        'Could not read the depth of http://127.0.0.1:1/123456789012/q:',
      );
      expect(calls).toBe(before);
    });
  });

  it('with --queue-url, reports its depth and leaves the messages of another sender of an npm start it did not start as they were: visible, never received', async () => {
    // Prepare: the user's npm start, holding a message of someone else
    const key = randomBytes(32).toString('hex');
    const stateDir = join(dir(), 'beside');
    const banner = await spawnNpmStart({ WEBHOOK_SECRET: key, LOCAL_STATE_DIR: stateDir }).ready();
    const queueUrl = `http://127.0.0.1:${bannerPort(banner, 'Queue URL')}/123456789012/webhook-events`;
    const sqs = sqsClientFor(queueUrl);
    const foreign = (when: string) =>
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `{"sent":"${when}"}` }));
    await foreign('before');

    // Act: a load test against it, and one more message of someone else while it runs
    const running = runTool(
      main,
      [
        '--requests',
        '200',
        '--warm-up',
        '0',
        '--url',
        bannerValue(banner, 'Webhook URL'),
        '--queue-url',
        queueUrl,
      ],
      {
        env: {
          WEBHOOK_SECRET: key,
          LOCAL_S3_PORT: String(bannerPort(banner, 'Archive')),
          LOCAL_STATE_DIR: stateDir,
        },
      },
    );
    await foreign('during');
    const run = await running;

    // Assess: the run passed on its answers and archive, and the first receive of the others'
    // messages is this one
    const out = run.out.join('\n');
    expect(run.err).toEqual([]);
    expect(out).toContain('PASS: every call answered 200 has its archive record');
    const [, queued = 0, ignored = 0] = (/^total +\d+ +(\d+) +(\d+)/m.exec(out) ?? []).map(Number);
    expect(out).toContain(
      `Archive: ${queued + ignored} of ${queued + ignored} calls answered 200 have their record`,
    );
    // Before the run read its depth, the second message of the others may or may not have been
    // sent; after it, every message is there and none is in flight.
    const depth = new RegExp(
      `^Queue depth of ${queueUrl}: (\\d+) \\(\\1 visible, 0 in flight\\) before, ${queued + 2} \\(${queued + 2} visible, 0 in flight\\) after; this run queued ${queued},`,
      'm',
    ).exec(out);
    expect([1, 2]).toContain(Number(depth?.[1]));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    sqs.destroy();
    expect(Attributes).toMatchObject({
      ApproximateNumberOfMessages: String(queued + 2),
      ApproximateNumberOfMessagesNotVisible: '0',
    });
    const messages = await receiveAndDeleteAll(queueUrl);
    const others = messages.filter((message) => message.Body?.startsWith('{"sent"'));
    expect(
      others.map((message) => [message.Body, message.Attributes?.ApproximateReceiveCount]).sort(),
    ).toEqual([
      ['{"sent":"before"}', '1'],
      ['{"sent":"during"}', '1'],
    ]);
    // The run's own messages stay in the queue it did not own.
    expect(messages.length - others.length).toBe(queued);
  }, 120_000);

  it('prints its usage with --help and exits 0', async () => {
    // Act
    const run = await runTool(main, ['--help']);

    // Assess
    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toContain('Usage: npm run loadtest -- [--requests N]');
  });

  it.each([
    [['--requests', '0'], "--requests must be a whole number from 1 to 100000, got '0'"],
    [['--concurrency', 'many'], "--concurrency must be a whole number from 1 to 256, got 'many'"],
    [['--warm-up', '61'], "--warm-up must be a whole number from 0 to 60, got '61'"],
    [
      ['--url', 'https://hooks.example.com/webhook'],
      "--url must point at this machine (127.0.0.1, localhost or [::1]), got 'https://hooks.example.com/webhook'",
    ],
    [
      ['--url', 'https://user:hunter2@hooks.example.com/webhook'],
      "--url must point at this machine (127.0.0.1, localhost or [::1]), got 'https://***@hooks.example.com/webhook'",
    ],
    [
      ['--queue-url', 'http://127.0.0.1:9324/123456789012/webhook-events'],
      '--queue-url goes with --url (the started npm start has its own queue)',
    ],
    [
      [
        '--url',
        'http://127.0.0.1:3000/webhook',
        '--queue-url',
        'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-events',
      ],
      "--queue-url must point at this machine (127.0.0.1, localhost or [::1]), got 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-events'",
    ],
  ])('refuses %j with exit status 2 before sending anything', async (args, message) => {
    // Act
    const run = await runTool(main, args);

    // Assess
    expect(run.status).toBe(2);
    expect(run.err).toEqual([`${message} (see npm run loadtest -- --help)`]);
  });

  it('refuses a FORWARD_EVENTS that would queue the event_cancelled calls of the mix', async () => {
    // Act
    const run = await runTool(main, [], { env: { FORWARD_EVENTS: '*' } });

    // Assess
    expect(run.status).toBe(2);
    expect(run.err[0]).toContain('FORWARD_EVENTS forwards event_cancelled');
  });
});
