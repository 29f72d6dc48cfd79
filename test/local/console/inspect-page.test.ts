import { access, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../../devkit/sqs-client.js';
import { signPayload } from '../../../lambda/core/index.js';
import type { RunningConsole } from '../../../local/console/console-server.js';
import { main as inspect } from '../../../local/console/inspect.js';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import { runTool } from '../../devkit/run-tool.js';
import { bookingPayload } from '../../support/booking.js';
import { startLocalReceiverInProcess } from '../../support/local-receiver.js';

/** Debian's Chromium binary (`/usr/bin/chromium` is a shell wrapper around it); `.ci/run` installs it. */
const CHROMIUM = '/usr/lib/chromium/chromium';
const ROOT = resolve(import.meta.dirname, '../../..');
/** The run's scratch folder: the receiver's state and Chromium's profile (TMPDIR) live here. */
const SCRATCH = join(ROOT, '.local', `inspect-page-test-${process.pid}`);
const KEY = 'whsec-inspect-page-9c2e';
const ON_SCREEN = { timeout: 10_000 } as const;

describe('Function: the console page over the archive', () => {
  let receiver: LocalReceiver;
  let browser: Browser;
  let page: Page;
  let running: RunningConsole;
  const stop = new AbortController();
  let stopped: Promise<unknown>;

  beforeAll(async () => {
    await mkdir(SCRATCH, { recursive: true });
    process.env.TMPDIR = SCRATCH;
    receiver = await startLocalReceiverInProcess(KEY, SCRATCH);
    await access(CHROMIUM).catch(() => {
      throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
    });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const ready = new Promise<RunningConsole>((resolveReady) => {
      stopped = runTool(
        (args, io) => inspect(args, io, stop.signal, resolveReady),
        ['--local', '--port', '0'],
        {
          env: {
            LOCAL_SQS_PORT: String(receiver.queues.port),
            LOCAL_S3_PORT: String(receiver.archive.port),
            // The archive's credentials are in the receiver's state folder.
            LOCAL_STATE_DIR: join(SCRATCH, 'queues'),
            WEBHOOK_SECRET: KEY,
          },
        },
      );
    });
    running = await ready;
  });

  afterAll(async () => {
    stop.abort();
    await stopped;
    await browser?.close();
    await receiver?.close();
    await rm(SCRATCH, { recursive: true, force: true });
  });

  it('shows the archived deliveries, opens one with its exact body and replays it into the queue after a confirmation', async () => {
    // Prepare: two genuine deliveries, archived, their messages consumed
    const now = Math.floor(Date.now() / 1000);
    const bodies = ['8101', '8102'].map((id) =>
      JSON.stringify(bookingPayload({ data: { id, nights: 2 } })),
    );
    const ids: string[] = [];
    for (const body of bodies) {
      const answer = await fetch(receiver.webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'service-signature': signPayload(body, KEY, now),
        },
        body,
      });
      expect(answer.status).toBe(200);
      ids.push(answer.headers.get('x-amzn-requestid') ?? '');
    }
    await receiver.archive.flush();
    const sqs = sqsClientFor(receiver.queues.queueUrl);
    const receive = () =>
      sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: receiver.queues.queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 300,
        }),
      );
    expect((await receive()).Messages).toHaveLength(2);

    // Act
    await page.goto(running.url);

    // Assess: newest first, from the archive
    await expect
      .poll(
        () =>
          page
            .locator('#rows tr')
            .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.id ?? '')),
        ON_SCREEN,
      )
      .toEqual([...ids].reverse());
    expect(await page.locator('#live').textContent()).toBe('archive of the local run');
    expect(await page.locator('#empty').isHidden()).toBe(true);

    // Act: open the older one and ask for its replay
    await page.locator(`#rows tr[data-id="${ids[0]}"] a`).click();
    await page.getByRole('tab', { name: 'Exact bytes' }).click();
    const exact = await page.locator('#detail pre.body').textContent();
    await page.getByRole('button', { name: 'Replay into the queue' }).click();

    // Assess: the confirmation names the queue, and nothing is sent before it
    expect(exact).toBe(bodies[0]);
    expect(await page.locator('#detail .question').textContent()).toBe(
      `Send 1 delivery to ${receiver.queues.queueUrl}?`,
    );
    expect((await receive()).Messages ?? []).toHaveLength(0);

    // Act
    await page.getByRole('button', { name: 'Confirm' }).click();

    // Assess
    await expect
      .poll(() => page.locator('#detail .replay-result').textContent(), ON_SCREEN)
      .toBe(`Sent 1 delivery to ${receiver.queues.queueUrl}.`);
    expect(((await receive()).Messages ?? []).map(({ Body }) => Body)).toEqual([bodies[0]]);
    sqs.destroy();
  });
});
