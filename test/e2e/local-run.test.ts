import { readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { postWebhook } from '../../devkit/post-webhook.js';
import { signPayload } from '../../lambda/core/index.js';
import { closeServer, listen } from '../../local/net.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { makeScratchDir } from '../support/scratch-dir.js';
import {
  bannerValue,
  killStartedProcessesAfterEach,
  postSignedBooking,
  ready,
  startProcess,
} from '../support/start-process.js';

killStartedProcessesAfterEach();

describe('npm start (end to end)', () => {
  let cwd: string;

  beforeAll(async () => {
    cwd = await makeScratchDir('local-run');
  });

  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('queues exactly the genuine calls with their bodies intact, rejects forgeries, and exits 0 on Ctrl-C', async () => {
    // Prepare
    const started = startProcess(cwd);
    const banner = await ready(started);
    const webhookUrl = bannerValue(banner, 'Webhook URL');
    const queueUrl = bannerValue(banner, 'Queue URL');
    const key =
      /^WEBHOOK_SECRET=([0-9a-f]{64})$/m.exec(await readFile(join(cwd, '.env'), 'utf8'))?.[1] ?? '';
    const now = (): number => Math.floor(Date.now() / 1000);
    const compact = buildBookingPayload();
    const pretty = `${JSON.stringify(JSON.parse(buildBookingPayload()), null, 4).replaceAll('\n', '\r\n')}\r\n`;
    const cancelled = buildBookingPayload({ event: 'event_cancelled' });
    const tampered = buildBookingPayload();

    // Act
    const answers = {
      compact: await postWebhook(
        webhookUrl,
        Buffer.from(compact),
        signPayload(compact, key, now()),
      ),
      pretty: await postWebhook(webhookUrl, Buffer.from(pretty), signPayload(pretty, key, now())),
      ignored: await postWebhook(
        webhookUrl,
        Buffer.from(cancelled),
        signPayload(cancelled, key, now()),
      ),
      wrongKey: await postWebhook(
        webhookUrl,
        Buffer.from(compact),
        signPayload(compact, 'not-the-key', now()),
      ),
      tampered: await postWebhook(
        webhookUrl,
        Buffer.from(tampered.replace(/"id":"\d+"/, '"id":"999999"')),
        signPayload(tampered, key, now()),
      ),
      stale: await postWebhook(
        webhookUrl,
        Buffer.from(compact),
        signPayload(compact, key, now() - 3600),
      ),
      noHeader: await fetch(webhookUrl, { method: 'POST', body: compact }),
      get: await fetch(webhookUrl),
      otherPath: await fetch(new URL('/hooks', webhookUrl), { method: 'POST', body: compact }),
    };
    const queued = await receiveAndDeleteAll(queueUrl);
    started.child.kill('SIGINT');
    const exitCode = await started.exit;

    // Assess
    expect({
      compact: answers.compact.status,
      pretty: answers.pretty.status,
      ignored: answers.ignored.status,
      wrongKey: answers.wrongKey.status,
      tampered: answers.tampered.status,
      stale: answers.stale.status,
      noHeader: answers.noHeader.status,
      get: answers.get.status,
      otherPath: answers.otherPath.status,
    }).toEqual({
      compact: 200,
      pretty: 200,
      ignored: 200,
      wrongKey: 401,
      tampered: 401,
      stale: 401,
      noHeader: 401,
      get: 405,
      otherPath: 404,
    });
    expect(JSON.parse(answers.compact.body)).toEqual({ status: 'queued' });
    expect(JSON.parse(answers.ignored.body)).toEqual({ status: 'ignored' });
    expect(queued.map((message) => message.Body).sort()).toEqual([compact, pretty].sort());
    expect(queued.map((message) => message.MessageAttributes?.event?.StringValue)).toEqual([
      'event_booked',
      'event_booked',
    ]);
    expect(exitCode).toBe(0);
    expect(banner).toContain(
      `Generated a signing key (WEBHOOK_SECRET) and saved it to ${join(cwd, '.env')}`,
    );
    expect(key).toHaveLength(64);
    expect(started.stdout() + started.stderr()).not.toContain(key);
    expect(started.stdout()).toContain(
      'SIGINT: stopping the local receiver (queued messages stay in',
    );
  });

  it('kept the generated key in .env, owner-only, and verifies with it on the next start, ignoring a stray SECRET_ID', async () => {
    // Prepare
    const dotEnv = await readFile(join(cwd, '.env'), 'utf8');
    const key = /^WEBHOOK_SECRET=([0-9a-f]{64})$/m.exec(dotEnv)?.[1] ?? '';
    const started = startProcess(cwd, { SECRET_ID: 'webhook-signing-key' });
    const banner = await ready(started);

    // Act
    const answer = await postSignedBooking(bannerValue(banner, 'Webhook URL'), key);
    started.child.kill('SIGTERM');
    const exitCode = await started.exit;

    // Assess
    expect((await stat(join(cwd, '.env'))).mode & 0o777).toBe(0o600);
    expect(banner).not.toContain('Generated a signing key');
    expect(banner).toContain('Ignoring SECRET_ID');
    expect(banner).toContain(`Key:          WEBHOOK_SECRET from ${join(cwd, '.env')}`);
    expect(answer.status).toBe(200);
    expect(exitCode).toBe(0);
  });

  it('exits 1 naming LOCAL_SQS_PORT when that port is taken', async () => {
    // Prepare
    const blocker = createServer();
    const port = await listen(blocker, 0, '127.0.0.1');

    // Act
    const started = startProcess(cwd, { LOCAL_SQS_PORT: String(port) });
    const exitCode = await started.exit;
    await closeServer(blocker);

    // Assess
    expect(exitCode).toBe(1);
    expect(started.stderr()).toContain(`Port ${port} is already in use`);
    expect(started.stderr()).toContain('LOCAL_SQS_PORT=<port>');
  });
});
