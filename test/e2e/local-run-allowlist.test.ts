import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main as send } from '../../cli/send.js';
import type { DeliveryDetail, DeliverySummary } from '../../local/inspector/delivery.js';
import { runTool } from '../devkit/run-tool.js';
import { isRunning, type NpmStart, spawnNpmStart } from '../support/npm-start.js';
import { scratchDir } from '../support/scratch-dir.js';
import {
  bannerValue,
  killStartedProcessesAfterEach,
  ready,
  startProcess,
} from '../support/start-process.js';

killStartedProcessesAfterEach();

const KEY = randomBytes(32).toString('hex');
const dir = scratchDir('local-run-allowlist');
let run: NpmStart | undefined;

afterEach(() => {
  if (run?.npm.pid !== undefined && isRunning(run.npm.pid)) run.npm.kill('SIGKILL');
  run = undefined;
});

describe('npm start with ALLOWED_SOURCE_IPS (end to end, as the README tries it)', () => {
  it('refuses a caller on 127.0.0.1 when the list leaves it out: 403 source_not_allowed, logged, and shown in the inspector', async () => {
    // Prepare: `ALLOWED_SOURCE_IPS=203.0.113.0/24 npm start`
    run = spawnNpmStart({
      ALLOWED_SOURCE_IPS: '203.0.113.0/24',
      WEBHOOK_SECRET: KEY,
      LOCAL_STATE_DIR: join(dir(), 'queues'),
    });
    const banner = await run.ready();
    const webhookUrl = bannerValue(banner, 'Webhook URL');
    const inspector = `${bannerValue(banner, 'Inspector')}/api/deliveries`;

    // Act: `npm run send` in another terminal
    const sent = await runTool(send, ['--url', webhookUrl], { env: { WEBHOOK_SECRET: KEY } });
    const listed = (await (await fetch(inspector)).json()) as { deliveries: DeliverySummary[] };
    const id = listed.deliveries[0]?.id ?? '';
    const detail = (await (await fetch(`${inspector}/${id}`)).json()) as DeliveryDetail;

    // Assess
    expect(banner).toContain(
      "  Allowlist:    203.0.113.0/24 only (ALLOWED_SOURCE_IPS): calls from other addresses are answered 403 source_not_allowed, this machine's own calls from 127.0.0.1 included",
    );
    expect(sent.status).toBe(1);
    expect(sent.out[0]).toMatch(/-> 403 \{"error":"forbidden","reason":"source_not_allowed"\}$/);
    expect(listed.deliveries[0]).toMatchObject({ status: 403, reason: 'source_not_allowed' });
    expect(detail.sourceIp).toBe('127.0.0.1');
    expect(detail.diagnosis?.[0]).toBe(
      'The call came from 127.0.0.1, which is outside ALLOWED_SOURCE_IPS: the receiver refused it before reading the body or loading a key.',
    );
    const warning = run
      .output()
      .split('\n')
      .find((line) => line.includes('"source_not_allowed"'));
    expect(JSON.parse(warning ?? '{}')).toMatchObject({
      level: 'WARN',
      status: 403,
      reason: 'source_not_allowed',
      source_ip: '127.0.0.1',
    });
  });

  it('refuses to start with an invalid ALLOWED_SOURCE_IPS, naming the bad entry', async () => {
    // Act
    const started = startProcess(dir(), {
      ALLOWED_SOURCE_IPS: '127.0.0.1/8',
      WEBHOOK_SECRET: KEY,
      LOCAL_STATE_DIR: join(dir(), 'refused'),
    });
    const code = await started.exit;

    // Assess
    expect(code).toBe(1);
    expect(started.stderr()).toContain(
      'Could not start the local receiver: allowedSourceIps (ALLOWED_SOURCE_IPS) entry "127.0.0.1/8" has bits set after its /8 prefix: write 127.0.0.0/8 for the range, or 127.0.0.1/32 for this one address',
    );
  });

  it('lets in a caller inside the list, IPv4 and IPv6 loopback alike', async () => {
    // Prepare
    const started = startProcess(dir(), {
      ALLOWED_SOURCE_IPS: '127.0.0.1, ::1',
      HOST: '::',
      INSPECTOR: 'off',
      WEBHOOK_SECRET: KEY,
      LOCAL_STATE_DIR: join(dir(), 'inside'),
    });
    const banner = await ready(started);
    const port = new URL(bannerValue(banner, 'Webhook URL')).port;

    // Act
    const answers = [];
    for (const host of ['127.0.0.1', '[::1]']) {
      const sent = await runTool(send, ['--url', `http://${host}:${port}/webhook`], {
        env: { WEBHOOK_SECRET: KEY },
      });
      answers.push(sent.out[0]);
    }

    // Assess
    expect(answers).toEqual([
      expect.stringMatching(/-> 200 \{"status":"queued"\}$/),
      expect.stringMatching(/-> 200 \{"status":"queued"\}$/),
    ]);
  });
});
