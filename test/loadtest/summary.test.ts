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
  });
});
