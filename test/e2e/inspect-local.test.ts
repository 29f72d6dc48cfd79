import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { localArchiveCredentials } from '../../devkit/archive-credentials.js';
import { bannerValue, inheritedEnvironment } from '../../devkit/local-process.js';
import { DLQ_NAME, localQueueUrl } from '../../devkit/local-run.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { signPayload } from '../../lambda/core/index.js';
import type { ArchiveRecord } from '../../lambda/receiver/archive-record.js';
import { bookingPayload } from '../support/booking.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { killNpmStartsAfterEach, spawnNpmStart } from '../support/npm-start.js';
import { rawRequest } from '../support/raw-request.js';
import { scratchDir } from '../support/scratch-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'whsec-inspect-console-3f1a';
const dir = scratchDir('inspect-local');

killNpmStartsAfterEach();
const consoles = new Set<ChildProcess>();
afterEach(async () => {
  for (const child of consoles) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  consoles.clear();
});

/** `npm run inspect -- <args>` with `env`; resolves with its URL once it printed the Inspector line. */
async function startInspect(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ readonly url: string; readonly output: () => string }> {
  const inherited = Object.fromEntries(
    Object.entries(inheritedEnvironment(process.env)).filter(([name]) => !name.startsWith('npm_')),
  );
  const child = spawn('npm', ['run', '--silent', 'inspect', '--', ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  consoles.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (let waited = 0; waited < 30_000; waited += 100) {
    const line = /^Inspector: (http:\/\/127\.0\.0\.1:\d+\/_inspector)$/m.exec(output);
    if (line?.[1] !== undefined) return { url: line[1], output: () => output };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`npm run inspect did not get ready:\n${output}`);
}

describe('npm run inspect -- --local', () => {
  it('lists, opens and replays the archived deliveries of a running npm start, lists its dead letter without taking it and redrives it', async () => {
    // Prepare: npm start, three genuine deliveries, a forged one, and a record only the archive holds
    const stateDir = join(dir(), 'state');
    const run = spawnNpmStart({ WEBHOOK_SECRET: KEY, LOCAL_STATE_DIR: stateDir });
    const banner = await run.ready();
    const webhookUrl = bannerValue(banner, 'Webhook URL');
    const queueUrl = bannerValue(banner, 'Queue URL');
    const archiveUrl = new URL(bannerValue(banner, 'Archive'));
    const deadLetterUrl = localQueueUrl(Number(new URL(queueUrl).port), DLQ_NAME);
    const now = Math.floor(Date.now() / 1000);
    const genuine: { id: string; body: string }[] = [];
    for (const id of ['7001', '7002', '7003']) {
      const body = JSON.stringify(bookingPayload({ data: { ...bookingData(), id } }));
      const answer = await post(webhookUrl, body, signPayload(body, KEY, now));
      expect(answer.status).toBe(200);
      genuine.push({ id: answer.requestId, body });
    }
    const forgedBody = JSON.stringify(bookingPayload({ source: 'forged' }));
    const forged = await post(webhookUrl, forgedBody, signPayload(forgedBody, 'not-the-key', now));
    expect(forged.status).toBe(401);
    const s3 = localS3Client(archiveUrl.origin, localArchiveCredentials(stateDir));
    const hour = new Date().toISOString().slice(0, 13).replace(/[-T]/g, '/');
    const archiveOnly: ArchiveRecord = {
      v: 1,
      received_at: new Date().toISOString(),
      api_request_id: 'archive-only-1',
      verdict: 'ignored',
      status: 200,
      headers: {},
      body_base64: Buffer.from('{"event":"other"}').toString('base64'),
      body_bytes: 17,
    };
    const Body = `${JSON.stringify(archiveOnly)}\n`;
    await s3.send(
      new PutObjectCommand({
        Bucket: archiveUrl.pathname.slice(1),
        Key: `deliveries/${hour}/hand-placed`,
        Body,
        ContentLength: Buffer.byteLength(Body),
      }),
    );
    s3.destroy();
    // The queue drained, and one message in the dead-letter queue
    await receiveAndDeleteAll(queueUrl);
    const sqs = sqsClientFor(queueUrl);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: deadLetterUrl, MessageBody: '{"dead":"letter"}' }),
    );
    const env = {
      LOCAL_SQS_PORT: new URL(queueUrl).port,
      LOCAL_S3_PORT: archiveUrl.port,
      LOCAL_STATE_DIR: stateDir,
      WEBHOOK_SECRET: KEY,
    };

    // Act
    const inspect = await startInspect(['--local', '--port', '0'], env);
    const api = (path: string, init?: RequestInit) => fetch(`${inspect.url}/api${path}`, init);
    const list = async () =>
      ((await (await api('/deliveries')).json()) as { deliveries: { id: string }[] }).deliveries;
    // The local archive writes its buffer about a second after the calls.
    let ids: string[] = [];
    for (let tries = 0; tries < 50 && ids.length < 5; tries++) {
      ids = (await list()).map(({ id }) => id);
      if (ids.length < 5) await sleep(200);
    }

    // Assess: every archived delivery, each once
    expect(ids.sort()).toEqual(
      [...genuine.map(({ id }) => id), forged.requestId, 'archive-only-1'].sort(),
    );
    const first = genuine[0] ?? { id: '', body: '' };
    const detail = (await (await api(`/deliveries/${first.id}`)).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ id: first.id, body: first.body, bodyEncoding: 'utf8' });
    const forgedDetail = (await (await api(`/deliveries/${forged.requestId}`)).json()) as {
      diagnosis?: string[];
    };
    expect(forgedDetail.diagnosis?.join(' ')).toContain("is most likely not this endpoint's");
    expect(JSON.stringify(forgedDetail)).not.toContain(KEY);

    // Act: replay one genuine delivery, and try the forged one
    const replay = await api(`/deliveries/${first.id}/replay`, POST);
    const refused = await api(`/deliveries/${forged.requestId}/replay`, POST);

    // Assess
    expect(replay.status).toBe(200);
    expect(refused.status).toBe(409);
    expect((await receiveAndDeleteAll(queueUrl)).map(({ Body }) => Body)).toEqual([first.body]);

    // Act: list the dead letters
    const listed = (await (await api('/dead-letters')).json()) as {
      deadLetters: { body: string; receiveCount: number }[];
    };

    // Assess: listed, and still there, visible
    expect(listed.deadLetters).toEqual([
      expect.objectContaining({ body: '{"dead":"letter"}', receiveCount: 1 }),
    ]);
    expect(await counts(deadLetterUrl)).toEqual({ visible: 1, hidden: 0 });

    // Act: redrive
    const redrive = await api('/dead-letters/redrive', POST);

    // Assess
    expect(redrive.status).toBe(200);
    expect(await redrive.json()).toMatchObject({ moved: 1, complete: true });
    expect(await counts(deadLetterUrl)).toEqual({ visible: 0, hidden: 0 });
    expect((await receiveAndDeleteAll(queueUrl)).map(({ Body }) => Body)).toEqual([
      '{"dead":"letter"}',
    ]);
    sqs.destroy();

    // Act: another site's page, and a DNS-rebinding host
    const crossOrigin = await rawRequest(`${inspect.url}/api/deliveries/${first.id}/replay`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    const rebound = await rawRequest(`${inspect.url}/api/deliveries`, {
      headers: { host: 'evil.example' },
    });

    // Assess: refused, nothing sent, no body in the console's output
    expect(crossOrigin.status).toBe(403);
    expect(rebound.status).toBe(403);
    expect(await counts(queueUrl)).toEqual({ visible: 0, hidden: 0 });
    expect(inspect.output()).not.toContain('7001');
  });
});

const POST: RequestInit = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{}',
};

/** A webhook call; its status and the request id the local server gave it. */
async function post(
  url: string,
  body: string,
  signature: string,
): Promise<{ status: number; requestId: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-signature': signature },
    body,
  });
  await response.arrayBuffer();
  return { status: response.status, requestId: response.headers.get('x-amzn-requestid') ?? '' };
}

/** Messages visible and in flight on a queue. */
async function counts(queueUrl: string): Promise<{ visible: number; hidden: number }> {
  const sqs = sqsClientFor(queueUrl);
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return {
      visible: Number(Attributes.ApproximateNumberOfMessages),
      hidden: Number(Attributes.ApproximateNumberOfMessagesNotVisible),
    };
  } finally {
    sqs.destroy();
  }
}

/** The `data` of the test booking, for a copy with another id. */
function bookingData(): Record<string, unknown> {
  return (bookingPayload() as { data: Record<string, unknown> }).data;
}
