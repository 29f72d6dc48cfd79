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

function summaryInput(sharedQueue: boolean, foreign: number): SummaryInput {
  const messages = [{ digest: result.digest, dedupKey: 'k' }];
  const verdict = judgeRun({
    requested: 1,
    results: [result],
    messages,
    expectations: CONTRACT,
    standardQueue: true,
  });
  return {
    url: 'http://127.0.0.1:3000/webhook',
    requested: 1,
    concurrency: 1,
    warmUp: { results: [], elapsedMs: 0 },
    run: { results: [result], elapsedMs: 100 },
    queue: { messages, foreign },
    expectations: CONTRACT,
    verdict,
    sharedQueue,
  };
}

describe('Function: formatSummary', () => {
  it('passes on the run’s own messages and says what a shared queue leaves unchecked under --url', () => {
    // Act
    const text = formatSummary(summaryInput(true, 3));

    // Assess
    expect(text).toContain('PASS: every 200 queued answer has exactly one message');
    expect(text).toContain('3 messages of other senders left in the queue');
    expect(text).toContain('Not checked (--url: the queue is shared)');
    expect(text).toContain(
      'Archive: not checked (--url: the archive of that npm start is not known)',
    );
    expect(text).not.toContain('no other message exists');
  });

  it('has nothing to leave unchecked when the run started its own receiver', () => {
    // Act
    const text = formatSummary(summaryInput(false, 0));

    // Assess
    expect(text).not.toContain('Not checked');
    expect(text).not.toContain('Warm-up');
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
