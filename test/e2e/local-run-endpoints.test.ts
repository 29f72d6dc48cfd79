import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as consume } from '../../cli/consume.js';
import { main as send } from '../../cli/send.js';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { describeKey } from '../../devkit/diagnose-signature.js';
import { postWebhook } from '../../devkit/post-webhook.js';
import { signPayload } from '../../lambda/core/index.js';
import type { DeliveryDetail, DeliverySummary } from '../../local/inspector/delivery.js';
import { runTool } from '../devkit/run-tool.js';
import { scratchDir } from '../support/scratch-dir.js';
import {
  bannerValue,
  killStartedProcessesAfterEach,
  postSignedBooking,
  ready,
  startProcess,
} from '../support/start-process.js';

killStartedProcessesAfterEach();

/** The key of `us`, kept in `.env` before the first start; `eu`'s is generated. */
const US_KEY = 'us-endpoint-key-from-dotenv';

/** The working directory of every start: its `.env` carries over from one test to the next. */
const scratch = scratchDir('local-run-endpoints');

describe('npm start with ENDPOINTS=eu,us (end to end)', () => {
  it('serves each endpoint with its own key, refuses the other key and unknown names, and consume shows each endpoint', async () => {
    // Prepare
    const cwd = scratch();
    await writeFile(join(cwd, '.env'), `ENDPOINTS=eu,us\nWEBHOOK_SECRET_US=${US_KEY}\n`, {
      mode: 0o600,
    });
    const started = startProcess(cwd);
    const banner = await ready(started);
    const euUrl = bannerValue(banner, 'Endpoint eu');
    const usUrl = bannerValue(banner, 'Endpoint us');
    const queueUrl = bannerValue(banner, 'Queue URL');
    const euKey =
      /^WEBHOOK_SECRET_EU=([0-9a-f]{64})$/m.exec(await readFile(join(cwd, '.env'), 'utf8'))?.[1] ??
      '';
    const tool = { cwd, env: {} };
    const stolen = buildBookingPayload();
    const now = Math.floor(Date.now() / 1000);

    // Act
    const sentToEu = await runTool(send, ['--endpoint', 'eu', '--url', euUrl], tool);
    const sentToUs = await runTool(send, ['--endpoint', 'us', '--url', usUrl], tool);
    const euKeyOnUs = await postWebhook(
      usUrl,
      Buffer.from(stolen),
      signPayload(stolen, euKey, now),
    );
    const unknown = await postWebhook(
      new URL('/webhook/apac', euUrl).href,
      Buffer.from(stolen),
      signPayload(stolen, euKey, now),
    );
    const bare = await fetch(new URL('/webhook', euUrl), { method: 'POST', body: stolen });
    const inspector = new URL('/_inspector/api/deliveries', euUrl).href;
    const inspected = (await (await fetch(inspector)).json()) as {
      deliveries: DeliverySummary[];
    };
    const rejectedId = inspected.deliveries.find(({ status }) => status === 401)?.id;
    const rejected = (await (await fetch(`${inspector}/${rejectedId}`)).json()) as DeliveryDetail;
    const consumed = await runTool(consume, ['--queue-url', queueUrl], tool);
    started.child.kill('SIGINT');
    const exitCode = await started.exit;

    // Assess
    expect(banner).toContain(`Endpoint eu:  ${euUrl}  (key WEBHOOK_SECRET_EU from`);
    expect(euUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\/eu$/);
    expect(usUrl).toBe(euUrl.replace(/eu$/, 'us'));
    expect(banner).not.toContain('WEBHOOK_SECRET_US=');
    expect(sentToEu).toMatchObject({ status: 0 });
    expect(sentToEu.out[0]).toMatch(/-> 200 \{"status":"queued"\}$/);
    expect(sentToUs).toMatchObject({ status: 0 });
    expect(sentToUs.out[0]).toMatch(/-> 200 \{"status":"queued"\}$/);
    expect({ status: euKeyOnUs.status, body: JSON.parse(euKeyOnUs.body) }).toEqual({
      status: 401,
      body: { error: 'unauthorized', reason: 'signature_mismatch' },
    });
    expect({ status: unknown.status, body: JSON.parse(unknown.body) }).toEqual({
      status: 404,
      body: { error: 'not_found' },
    });
    expect(bare.status).toBe(404);
    expect(inspected.deliveries.map(({ endpoint, status }) => `${endpoint} ${status}`)).toEqual([
      '/webhook/apac 404',
      '/webhook/us 401',
      '/webhook/us 200',
      '/webhook/eu 200',
    ]);
    expect(rejected.diagnosis?.join('\n')).toContain(`the key (${describeKey(US_KEY)})`);
    expect(consumed.status).toBe(0);
    expect(consumed.out.map((line) => line.split(' | booking')[0]).sort()).toEqual([
      'endpoint eu',
      'endpoint us',
    ]);
    expect(exitCode).toBe(0);
  });

  it('kept the generated key in .env next to the others, owner-only, and reuses it on the next start, ignoring a WEBHOOK_SECRET', async () => {
    // Prepare
    const cwd = scratch();
    const dotEnv = await readFile(join(cwd, '.env'), 'utf8');
    const euKey = /^WEBHOOK_SECRET_EU=([0-9a-f]{64})$/m.exec(dotEnv)?.[1] ?? '';
    const started = startProcess(cwd, { WEBHOOK_SECRET: 'a-stray-single-endpoint-key' });
    const banner = await ready(started);

    // Act
    const answer = await postSignedBooking(bannerValue(banner, 'Endpoint eu'), euKey);
    started.child.kill('SIGTERM');
    await started.exit;

    // Assess
    expect(dotEnv).toBe(
      `ENDPOINTS=eu,us\nWEBHOOK_SECRET_US=${US_KEY}\nWEBHOOK_SECRET_EU=${euKey}\n`,
    );
    expect((await stat(join(cwd, '.env'))).mode & 0o777).toBe(0o600);
    expect(banner).not.toContain('Generated');
    expect(banner).toContain(
      'Ignoring WEBHOOK_SECRET: the local run signs and verifies with WEBHOOK_SECRET_<NAME> per endpoint of ENDPOINTS.',
    );
    expect(answer.status).toBe(200);
  });

  it("runs the banner's send command in a terminal without ENDPOINTS, when npm start had it in its environment", async () => {
    // Prepare: `ENDPOINTS=eu,us npm start` in a project without .env
    const cwd = join(scratch(), 'endpoints-in-environment');
    await mkdir(cwd);
    const started = startProcess(cwd, { ENDPOINTS: 'eu,us' });
    const banner = await ready(started);
    const command = banner
      .split('\n')
      .find((line) => line.startsWith('  npm run send -- --endpoint eu '));
    const args = command?.trim().split(' ').slice('npm run send --'.split(' ').length) ?? [];

    // Act: the printed command, in another terminal (no ENDPOINTS, no key exported)
    const sent = await runTool(send, args, { cwd, env: {} });
    started.child.kill('SIGINT');
    await started.exit;

    // Assess
    expect(args).toEqual(['--endpoint', 'eu', '--url', bannerValue(banner, 'Endpoint eu')]);
    expect(sent.err).toEqual([]);
    expect(sent.status).toBe(0);
    expect(sent.out[0]).toMatch(/-> 200 \{"status":"queued"\}$/);
  });

  it('exits 2 naming the endpoint when ENDPOINTS holds a name the receiver would refuse', async () => {
    // Act
    const started = startProcess(scratch(), { ENDPOINTS: 'eu,EU_West' });
    const exitCode = await started.exit;

    // Assess
    expect(exitCode).toBe(2);
    expect(started.stderr()).toContain("ENDPOINTS: endpoint name 'EU_West' must be");
  });
});
