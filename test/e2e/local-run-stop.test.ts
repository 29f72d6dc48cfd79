import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localArchiveCredentials } from '../../devkit/archive-credentials.js';
import { readArchiveWindow } from '../../devkit/archive-reader.js';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { LOCAL_ARCHIVE } from '../../devkit/local-run.js';
import { postWebhook } from '../../devkit/post-webhook.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { signPayload } from '../../lambda/core/index.js';
import { BUFFER_FILE_PREFIX } from '../../local/archive-buffer.js';
import { STATE_LOCK_FILE } from '../../local/state-lock.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import {
  bannerPort,
  isListening,
  isRunning,
  killNpmStartsAfterEach,
  millisecondsUntil,
  type NpmStart,
  spawnNpmStart,
} from '../support/npm-start.js';
import { scratchDir } from '../support/scratch-dir.js';

const KEY = randomBytes(32).toString('hex');
const dir = scratchDir('local-run-stop');

killNpmStartsAfterEach();

function start(stateDir: string, args: readonly string[] = []): NpmStart {
  return spawnNpmStart({ WEBHOOK_SECRET: KEY, LOCAL_STATE_DIR: stateDir }, args);
}

/** Sends a signed booking; resolves with the body and the status it got. */
async function sendBooking(banner: string): Promise<{ body: string; status: number }> {
  const body = buildBookingPayload();
  const url = `http://127.0.0.1:${bannerPort(banner, 'Webhook URL')}/webhook`;
  const answer = await postWebhook(
    url,
    Buffer.from(body),
    signPayload(body, KEY, Math.floor(Date.now() / 1000)),
  );
  return { body, status: answer.status };
}

/** The bodies of the calls archived since `from`, read as `npm run replay` reads them. */
async function archivedBodies(banner: string, stateDir: string, from: Date): Promise<string[]> {
  const s3 = localS3Client(
    `http://127.0.0.1:${bannerPort(banner, 'Archive')}`,
    localArchiveCredentials(stateDir),
  );
  try {
    const { calls } = await readArchiveWindow(s3, LOCAL_ARCHIVE.bucket, { from, to: new Date() });
    return calls.map(({ record }) => Buffer.from(record.body_base64, 'base64').toString('utf8'));
  } finally {
    s3.destroy();
  }
}

function queueUrl(banner: string): string {
  return `http://127.0.0.1:${bannerPort(banner, 'Queue URL')}/123456789012/webhook-events`;
}

describe('npm start (stopping)', () => {
  it.each([
    ['SIGINT', 'npm', undefined],
    ['SIGTERM', 'npm', undefined],
    ['SIGHUP', 'npm', undefined],
    ['SIGINT', 'node', 0],
    ['SIGTERM', 'node', 0],
    ['SIGHUP', 'node', 129],
    ['SIGKILL', 'npm', undefined],
  ] as const)('frees both ports within 2 s when %s is sent to %s', async (signal, target, code) => {
    // Prepare
    const run = start(join(dir(), `${signal}-${target}`));
    const banner = await run.ready();
    const ports = [bannerPort(banner, 'Webhook URL'), bannerPort(banner, 'Queue URL')];
    const server = run.serverPid();

    // Act
    process.kill(target === 'npm' ? (run.npm.pid ?? 0) : server, signal);
    const elapsed = await millisecondsUntil(
      async () => !isRunning(server) && !(await isListening(ports[0] ?? 0)),
      5_000,
    );
    const npmCode = await run.exit;

    // Assess
    console.info(`ports free ${elapsed} ms after ${signal} to ${target}`);
    expect(elapsed).toBeLessThan(2_000);
    expect(await isListening(ports[1] ?? 0)).toBe(false);
    if (code !== undefined) expect(npmCode).toBe(code);
  });

  it('keeps every acknowledged message and archive record through SIGKILL and a restart that takes over the stale lock, and --fresh empties the queue', async () => {
    // Prepare
    const stateDir = join(dir(), 'durable');
    const first = start(stateDir);
    const from = new Date();
    const sent = await Promise.all([1, 2, 3].map(async () => sendBooking(await first.ready())));
    const killed = first.serverPid();
    process.kill(killed, 'SIGKILL');
    await first.exit;
    // The killed run could not remove its lock: the restart must see it is stale.
    const staleLock = JSON.parse(readFileSync(join(stateDir, STATE_LOCK_FILE), 'utf8'));
    // Its archive records were still in the buffer files, not yet in the bucket: the restart
    // writes them.
    const buffered = readdirSync(stateDir)
      .filter((name) => name.startsWith(BUFFER_FILE_PREFIX))
      .map((name) => readFileSync(join(stateDir, name), 'utf8'))
      .join('')
      .split('\n')
      .filter(Boolean);

    // Act
    const second = start(stateDir);
    const secondBanner = await second.ready();
    const kept = await receiveAndDeleteAll(queueUrl(secondBanner));
    const archived = await archivedBodies(secondBanner, stateDir, from);
    const one = await sendBooking(secondBanner);
    second.npm.kill('SIGTERM');
    await second.exit;
    const fresh = start(stateDir, ['--fresh']);
    const freshBanner = await fresh.ready();
    const afterFresh = await receiveAndDeleteAll(queueUrl(freshBanner));
    fresh.npm.kill('SIGINT');
    await fresh.exit;

    // Assess
    expect(sent.map((call) => call.status)).toEqual([200, 200, 200]);
    expect(staleLock).toMatchObject({ pid: killed });
    expect(secondBanner).toContain('3 messages from earlier runs');
    expect(kept.map((message) => message.Body).sort()).toEqual(sent.map((c) => c.body).sort());
    // All three on a normal day; fewer if a slow machine took over a second for the calls.
    expect(buffered.length).toBeGreaterThan(0);
    expect(archived.sort()).toEqual(sent.map((c) => c.body).sort());
    expect(kept.map((message) => message.MessageAttributes?.event?.StringValue)).toEqual([
      'event_booked',
      'event_booked',
      'event_booked',
    ]);
    expect(one.status).toBe(200);
    expect(freshBanner).toContain('started empty (--fresh)');
    // The one booking sent after the three were consumed.
    expect(freshBanner).toContain(
      '  Discarded:    1 message from earlier runs (--fresh), dead-letter queue included',
    );
    expect(afterFresh).toEqual([]);
  });
});
