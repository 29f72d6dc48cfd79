import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { drainQueue } from '../../loadtest/drain-queue.js';
import { isRunBody, requestMix } from '../../loadtest/request-mix.js';
import { type LoadResult, runLoad } from '../../loadtest/run-load.js';
import { CONTRACT, judgeRun } from '../../loadtest/verdict.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { answerWatch } from '../support/answer-watch.js';
import { captureOutput } from '../support/capture-output.js';
import { startLocalReceiverInProcess } from '../support/local-receiver.js';

const KEY = 'whsec-faults-sqs-7d2c';
const RUN_ID = 'faults-sqs';
const REQUESTS = 900;

/** Calls that need SQS to be answered 200 queued. */
const needsQueue = (result: LoadResult): boolean =>
  result.kind === 'valid' || result.kind === 'replayed';

// In-process rather than `npm start` as a child: the outage is the embedded queue's listener
// stopping and starting again with its messages kept, and only this process holds that listener.
// The receiver is startLocalReceiver, exactly what local/start.ts runs: same wiring under test.
// The timeout is generous: several hundred calls on two cores shared with the rest of npm test.
describe('Fault: SQS unreachable for a window of a load run (local receiver wiring)', {
  timeout: 60_000,
}, () => {
  let dir: string;
  let receiver: LocalReceiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'faults-sqs-'));
    receiver = await startLocalReceiverInProcess(KEY, dir);
  });
  afterAll(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After and never 200 during the outage, 200 after it, and the queue pairs with the answers', async () => {
    // Prepare
    const output = captureOutput();
    const watch = answerWatch();
    const window = { closed: Number.POSITIVE_INFINITY, reopening: 0, reopened: 0 };
    const outage = (async () => {
      await watch.reached(200);
      await receiver.queues.close();
      window.closed = performance.now();
      await watch.reached(40, (result) => needsQueue(result) && result.startedAt >= window.closed);
      window.reopening = performance.now();
      await receiver.queues.listen();
      window.reopened = performance.now();
    })();
    const requests = requestMix({
      count: REQUESTS,
      key: KEY,
      runId: RUN_ID,
      seed: 6,
      toleranceSeconds: 300,
      maxBodyBytes: 262_144,
      now: () => Math.floor(Date.now() / 1000),
    });

    // Act
    const run = await runLoad({
      url: receiver.webhook.url,
      requests,
      concurrency: 20,
      timeLimitMs: 60_000,
      onAnswer: watch.onAnswer,
    });
    watch.finish();
    await outage;
    const client = sqsClientFor(receiver.queues.queueUrl);
    const queue = await drainQueue({
      client,
      queueUrl: receiver.queues.queueUrl,
      isOurs: (body) => isRunBody(body, RUN_ID),
    });
    client.destroy();
    output.restore();

    // Assess
    const during = run.results.filter(
      (result) =>
        needsQueue(result) &&
        result.startedAt >= window.closed &&
        result.endedAt <= window.reopening,
    );
    expect(during.length).toBeGreaterThanOrEqual(40);
    expect(
      new Set(during.map((result) => `${result.outcome}, Retry-After ${result.retryAfter}`)),
    ).toEqual(new Set(['503, Retry-After 5']));
    const after = run.results.filter(
      (result) => needsQueue(result) && result.startedAt >= window.reopened,
    );
    expect(after.length).toBeGreaterThan(100);
    expect(new Set(after.map((result) => result.outcome))).toEqual(new Set(['queued']));
    const verdict = judgeRun({
      requested: REQUESTS,
      results: run.results,
      messages: queue.messages,
      expectations: { ...CONTRACT, valid: ['queued', '503'], replayed: ['queued', '503'] },
      standardQueue: true,
      // A send in flight when the queue went down may have been stored before its connection was
      // cut: answered 503, its message is a copy the sender's resend would make anyway.
      mayBeQueued: (result) => result.outcome === '503' && result.startedAt < window.closed,
    });
    expect(verdict.problems).toEqual([]);
    const unavailable = run.results.filter((result) => result.outcome === '503').length;
    expect(output.logs().filter((line) => line.reason === 'queue_unavailable')).toHaveLength(
      unavailable,
    );
  });
});
