import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { EXIT_STATUS } from '../../devkit/exit-status.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { runScript, type ScriptStdout, scratchFiles } from '../devkit/spawn-script.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { bannerPort, killNpmStartsAfterEach, spawnNpmStart } from '../support/npm-start.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('tool-output');
const file = scratchFiles();

killNpmStartsAfterEach();

/** Starts npm start with `count` bookings in its queue; resolves with the queue's URL. */
async function queueHolding(name: string, count: number): Promise<string> {
  const run = spawnNpmStart({
    WEBHOOK_SECRET: randomBytes(32).toString('hex'),
    LOCAL_STATE_DIR: join(dir(), name),
  });
  const queueUrl = `http://127.0.0.1:${bannerPort(await run.ready(), 'Queue URL')}/123456789012/webhook-events`;
  const sqs = sqsClientFor(queueUrl);
  try {
    for (let index = 0; index < count; index += 1) {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: buildBookingPayload() }),
      );
    }
  } finally {
    sqs.destroy();
  }
  return queueUrl;
}

function consume(queueUrl: string, stdout: ScriptStdout) {
  return runScript('consume', ['--queue-url', queueUrl], {}, stdout);
}

describe('npm run consume (output that cannot be written)', () => {
  it('exits 1 with one line and leaves all 15 messages in the queue when stdout is /dev/full', async () => {
    // Prepare
    const queueUrl = await queueHolding('full', 15);
    const full = await open('/dev/full', 'w');

    // Act
    const run = await consume(queueUrl, { fd: full.fd }).finally(() => full.close());

    // Assess
    expect(run.status).toBe(EXIT_STATUS.refused);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^Could not write the output \(ENOSPC\): stopped after 0 messages/),
    ]);
    // Visible again at once: the drain finds all of them without waiting out a visibility timeout.
    expect(await receiveAndDeleteAll(queueUrl)).toHaveLength(15);
  });

  it('ends quietly with status 0 and deletes nothing when its reader is gone (| head)', async () => {
    // Prepare
    const queueUrl = await queueHolding('closed-pipe', 15);

    // Act
    const run = await consume(queueUrl, 'closed-pipe');

    // Assess
    expect(run.status).toBe(EXIT_STATUS.ok);
    expect(run.stderr).toBe('');
    expect(await receiveAndDeleteAll(queueUrl)).toHaveLength(15);
  });
});

describe('Any tool (output that cannot be written)', () => {
  it.each([
    ['/dev/full', EXIT_STATUS.refused, 'Could not write the output: ENOSPC\n'],
    ['a closed pipe', EXIT_STATUS.ok, ''],
  ])(
    'ends with one line or none, never a stack trace, when stdout is %s',
    async (target, status, stderr) => {
      // Prepare
      const body = await file('body.json', '{"event":"event_booked"}');
      const full = target === '/dev/full' ? await open('/dev/full', 'w') : undefined;

      // Act
      const run = await runScript(
        'sign',
        ['--body-file', body],
        { WEBHOOK_SECRET: 'k'.repeat(32) },
        full === undefined ? 'closed-pipe' : { fd: full.fd },
      ).finally(() => full?.close());

      // Assess
      expect(run).toMatchObject({ status, stderr });
    },
  );
});
