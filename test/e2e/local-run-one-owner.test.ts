import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { postWebhook } from '../../devkit/post-webhook.js';
import { signPayload } from '../../lambda/core/index.js';
import { main as loadtest } from '../../loadtest/run.js';
import { STATE_LOCK_FILE } from '../../local/state-lock.js';
import { runTool } from '../devkit/run-tool.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import {
  bannerPort,
  killNpmStartsAfterEach,
  type NpmStart,
  spawnNpmStart,
} from '../support/npm-start.js';
import { scratchDir } from '../support/scratch-dir.js';
import {
  bannerValue,
  killStartedProcessesAfterEach,
  ready,
  type StartedProcess,
  startProcess,
} from '../support/start-process.js';

const KEY = randomBytes(32).toString('hex');
const dir = scratchDir('local-run-one-owner');

killStartedProcessesAfterEach();
killNpmStartsAfterEach();

function start(stateDir: string): NpmStart {
  return spawnNpmStart({ WEBHOOK_SECRET: KEY, LOCAL_STATE_DIR: stateDir });
}

/** Sends `count` signed bookings one after the other; resolves with their bodies and statuses. */
async function sendBookings(banner: string, count: number) {
  const url = `http://127.0.0.1:${bannerPort(banner, 'Webhook URL')}/webhook`;
  const sent: { body: string; status: number }[] = [];
  for (let index = 0; index < count; index++) {
    const body = buildBookingPayload();
    const answer = await postWebhook(
      url,
      Buffer.from(body),
      signPayload(body, KEY, Math.floor(Date.now() / 1000)),
    );
    sent.push({ body, status: answer.status });
  }
  return sent;
}

/** Stops a run with Ctrl-C, starts the folder again, and drains what the new run restored. */
async function bodiesAfterRestart(run: NpmStart, stateDir: string): Promise<string[]> {
  run.npm.kill('SIGINT');
  expect(await run.exit).toBe(0);
  const again = start(stateDir);
  const messages = await receiveAndDeleteAll(bannerValue(await again.ready(), 'Queue URL'));
  again.npm.kill('SIGINT');
  await again.exit;
  return messages.map((message) => message.Body ?? '').sort();
}

/** Resolves with the exit code, or `'started'` when the process printed its banner instead. */
function exitOrBanner(run: StartedProcess | NpmStart): Promise<number | null | 'started'> {
  const banner = 'npm' in run ? run.ready() : ready(run);
  return Promise.race([run.exit, banner.then(() => 'started' as const)]);
}

/** A port held open by this test: a start that bound it before checking the lock would fail on it. */
async function holdPort(): Promise<{ port: number; release: () => void }> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  return { port, release: () => server.close() };
}

describe('npm start (one owner per state folder)', () => {
  it('refuses a second npm start on the same folder with exit 1, and the first keeps every acknowledged message across a restart', async () => {
    // Prepare
    const stateDir = join(dir(), 'two-starts');
    const first = start(stateDir);
    const banner = await first.ready();
    const port = bannerPort(banner, 'Webhook URL');
    const pid = first.serverPid();
    const before = await sendBookings(banner, 20);
    const journal = join(stateDir, 'journal.ndjson');
    const inode = statSync(journal).ino;

    // Act
    const second = start(stateDir);
    const secondCode = await exitOrBanner(second);
    const journalUntouched = statSync(journal).ino === inode;
    const after = await sendBookings(banner, 5);
    const kept = await bodiesAfterRestart(first, stateDir);

    // Assess
    expect(secondCode).toBe(1);
    expect(second.output()).toBe(
      `another npm start (pid ${pid}, port ${port}) is using ${stateDir}\n`,
    );
    expect(journalUntouched).toBe(true);
    expect([...before, ...after].map((call) => call.status)).toEqual(Array(25).fill(200));
    expect(kept).toEqual([...before, ...after].map((call) => call.body).sort());
    expect(existsSync(join(stateDir, STATE_LOCK_FILE))).toBe(false);
  }, 90_000);

  it('refuses before it writes .env or binds a port', async () => {
    // Prepare
    const stateDir = join(dir(), 'touch-nothing');
    const first = start(stateDir);
    const banner = await first.ready();
    const cwd = join(dir(), 'second-cwd');
    mkdirSync(cwd);
    // Ports another process holds: binding either would fail with another message.
    const busy = [await holdPort(), await holdPort()];

    // Act
    const second = startProcess(cwd, {
      LOCAL_STATE_DIR: stateDir,
      PORT: String(busy[0]?.port),
      LOCAL_SQS_PORT: String(busy[1]?.port),
    });
    const secondCode = await exitOrBanner(second);
    for (const port of busy) port.release();

    // Assess
    expect(secondCode).toBe(1);
    expect(second.stderr()).toBe(
      `another npm start (pid ${first.serverPid()}, port ${bannerPort(banner, 'Webhook URL')}) is using ${stateDir}\n`,
    );
    expect(second.stdout()).toBe('');
    expect(existsSync(join(cwd, '.env'))).toBe(false);
  }, 60_000);

  it('keeps every acknowledged message of npm start when a load test runs beside it with LOCAL_STATE_DIR exported', async () => {
    // Prepare
    const stateDir = join(dir(), 'beside-loadtest');
    const user = start(stateDir);
    const banner = await user.ready();
    const before = await sendBookings(banner, 10);

    // Act
    const run = await runTool(
      loadtest,
      ['--requests', '100', '--concurrency', '10', '--warm-up', '0'],
      { env: { ...process.env, LOCAL_STATE_DIR: stateDir } },
    );
    const after = await sendBookings(banner, 10);
    const kept = await bodiesAfterRestart(user, stateDir);

    // Assess
    expect(run.err).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.out.join('\n')).toContain('Queue: 60 messages of this run drained, 60 paired');
    expect([...before, ...after].map((call) => call.status)).toEqual(Array(20).fill(200));
    expect(kept).toEqual([...before, ...after].map((call) => call.body).sort());
    expect(readFileSync(join(stateDir, 'journal.ndjson'), 'utf8')).not.toContain('loadtest');
  }, 120_000);
});
