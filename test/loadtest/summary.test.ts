import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../loadtest/run-load.js';
import { formatSummary, type SummaryInput } from '../../loadtest/summary.js';
import { CONTRACT, judgeRun } from '../../loadtest/verdict.js';

const result: LoadResult = {
  index: 0,
  kind: 'valid',
  digest: 'a'.repeat(64),
  outcome: 'queued',
  retryAfter: undefined,
  startedAt: 0,
  endedAt: 5,
};

/** A run of one queued call, its queue drained when the run owned it, else its archive read. */
function summaryInput(ownQueue: boolean, foreign: number): SummaryInput {
  const messages = [{ digest: result.digest, dedupKey: 'k' }];
  const verdict = judgeRun({
    requested: 1,
    results: [result],
    ...(ownQueue
      ? { messages }
      : { archived: [{ digest: result.digest, verdict: 'queued' as const }] }),
    expectations: CONTRACT,
    standardQueue: true,
  });
  return {
    url: 'http://127.0.0.1:3000/webhook',
    requested: 1,
    concurrency: 1,
    warmUp: { results: [], elapsedMs: 0 },
    run: { results: [result], elapsedMs: 100 },
    queue: ownQueue ? { messages, foreign } : undefined,
    expectations: CONTRACT,
    verdict,
  };
}

describe('Function: formatSummary', () => {
  it('pairs the messages of a queue the run owned, counting what other senders left there', () => {
    // Act
    const text = formatSummary(summaryInput(true, 3));

    // Assess
    expect(text).toContain('Queue: 1 messages of this run drained, 1 paired');
    expect(text).toContain('3 messages of other senders left in the queue');
    expect(text).toContain('PASS: every 200 queued answer has exactly one message');
    expect(text).not.toContain('Warm-up');
  });

  it('says the queue of a receiver it did not start was not read, and judges its archive', () => {
    // Act
    const text = formatSummary(summaryInput(false, 0));

    // Assess
    expect(text).toContain(
      "Queue: not read (--url: other senders' messages are there, and a receive would hide them and count against their maxReceiveCount); the 1 messages of this run's 200 queued answers stay in it",
    );
    expect(text).toContain('Archive: 1 of 1 calls answered 200 have their record');
    expect(text).toContain(
      'PASS: every call answered 200 has its archive record with that verdict',
    );
    expect(text).not.toContain('drained');
  });

  it("reports the depth of a shared --queue-url before and after beside the run's queued count, without judging it", () => {
    // Act
    const text = formatSummary({
      ...summaryInput(false, 0),
      queueDepth: {
        url: 'http://127.0.0.1:9324/123456789012/webhook-events',
        before: { visible: 20, inFlight: 5 },
        after: { visible: 21, inFlight: 0 },
      },
    });

    // Assess: a consumer took four others' messages meanwhile; the run still passes
    expect(text).toContain(
      'Queue depth of http://127.0.0.1:9324/123456789012/webhook-events: 25 (20 visible, 5 in flight) before, 21 (21 visible, 0 in flight) after; this run queued 1, other senders and consumers count too (read from its attributes, no message received)',
    );
    expect(text).toContain('PASS:');
  });

  it('says why the depth of a shared --queue-url could not be read after the run', () => {
    // Act
    const text = formatSummary({
      ...summaryInput(false, 0),
      queueDepth: {
        url: 'http://127.0.0.1:9324/123456789012/webhook-events',
        before: { visible: 0, inFlight: 0 },
        after: 'connect ECONNREFUSED 127.0.0.1:9324',
      },
    });

    // Assess
    expect(text).toContain(
      '0 (0 visible, 0 in flight) before, unreadable after (connect ECONNREFUSED 127.0.0.1:9324);',
    );
  });

  it('times only the calls after the warm-up, and says how many came before', () => {
    // Prepare
    const warmUpResults = [1, 2].map((index) => ({
      ...result,
      index,
      digest: `${index}`.repeat(64),
    }));
    const input = summaryInput(false, 0);

    // Act
    const text = formatSummary({
      ...input,
      warmUp: { results: warmUpResults, elapsedMs: 1500 },
    });

    // Assess
    expect(text).toContain('Load test: 1 of 1 requests sent');
    expect(text).toContain(
      'Warm-up: 2 calls of the same mix in 1.5 s before them, judged but not timed (the table counts them)',
    );
    expect(text).toContain('Elapsed: 0.1 s, 10 requests/s, latency p50 5.0 ms');
  });
});
