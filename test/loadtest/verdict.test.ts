import { describe, expect, it } from 'vitest';
import type { DrainedMessage } from '../../loadtest/drain-queue.js';
import type { LoadResult, Outcome } from '../../loadtest/run-load.js';
import {
  type ArchivedCall,
  CONTRACT,
  judgeRun,
  type VerdictInput,
} from '../../loadtest/verdict.js';

let nextIndex = 0;

/** An answered request; the body is named by its digest. */
function answer(kind: string, digest: string, outcome: Outcome, retryAfter?: string): LoadResult {
  nextIndex += 1;
  return { index: nextIndex, kind, digest, outcome, retryAfter, startedAt: 0, endedAt: 1 };
}

const message = (
  digest: string,
  dedupKey: string | undefined = `key-${digest}`,
): DrainedMessage => ({
  digest,
  dedupKey,
});

/** A run where every kind got its contract answer and the queue holds what was queued. */
function passingRun(): VerdictInput & { readonly messages: readonly DrainedMessage[] } {
  const results = [
    answer('valid', 'a', 'queued'),
    answer('valid', 'b', 'queued'),
    answer('replayed', 'a', 'queued'),
    answer('forged', 'f', '401'),
    answer('stale', 's', '401'),
    answer('oversized', 'o', '413'),
    answer('ignored', 'i', 'ignored'),
  ];
  return {
    requested: results.length,
    results,
    messages: [message('a'), message('b'), message('a')],
    expectations: CONTRACT,
    standardQueue: true,
  };
}

describe('Function: judgeRun (a queue the run did not own)', () => {
  it('judges the answers and the archive, not the queue, when it has no messages', () => {
    // Prepare: the queue's messages are unknown; the archive holds every call answered 200
    const { messages: _, ...run } = passingRun();
    const archived = ['a', 'b', 'a'].map((digest) => ({ digest, verdict: 'queued' as const }));

    // Act
    const verdict = judgeRun({
      ...run,
      archived: [...archived, { digest: 'i', verdict: 'ignored' }],
    });

    // Assess
    expect(verdict).toMatchObject({ problems: [], matched: 0, archived: 4, answered200: 4 });
  });

  it('fails when the archive it was to read could not be read', () => {
    // Prepare
    const { messages: _, ...run } = passingRun();

    // Act
    const verdict = judgeRun({
      ...run,
      archiveUnreadable: 'http://127.0.0.1:1/webhook-archive: connect ECONNREFUSED',
    });

    // Assess
    expect(verdict.problems).toEqual([
      'the archive could not be read (http://127.0.0.1:1/webhook-archive: connect ECONNREFUSED)',
    ]);
  });
});

describe('Function: judgeRun', () => {
  it('passes when every queued answer has one message, counting a replayed body twice', () => {
    // Act
    const verdict = judgeRun(passingRun());

    // Assess
    expect(verdict.problems).toEqual([]);
    expect(verdict.matched).toBe(3);
    expect(verdict.repeatedBodies).toBe(1);
    expect(verdict.counts.get('valid')).toEqual(new Map([['queued', 2]]));
  });

  it('reports a call answered queued whose message is missing', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({ ...run, messages: [message('a'), message('b')] });

    // Assess
    expect(verdict.problems).toEqual(['1 calls answered 200 queued have no message in the queue']);
  });

  it('reports a message whose call was refused, naming the kind of call', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({ ...run, messages: [...run.messages, message('f')] });

    // Assess
    expect(verdict.problems).toEqual([
      '1 messages in the queue were never answered 200 queued (forged)',
    ]);
  });

  it('reports extra copies of a body answered queued apart from messages nobody was promised', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({ ...run, messages: [...run.messages, message('b'), message('s')] });

    // Assess
    expect(verdict.problems).toEqual([
      '1 extra copies of calls answered 200 queued are in the queue (more messages than 200 queued answers for the same body)',
      '1 messages in the queue were never answered 200 queued (stale)',
    ]);
  });

  it('accepts one message for each call that mayBeQueued marks (one per body on a FIFO queue), and reports any beyond', () => {
    // Prepare: c was answered 503 twice, then queued; d once 503 (its send cut off, stored).
    const run = passingRun();
    const results = [
      ...run.results,
      answer('valid', 'c', '503', '5'),
      answer('valid', 'c', '503', '5'),
      answer('valid', 'c', 'queued'),
      answer('valid', 'd', '503', '5'),
    ];
    const judged = (messages: DrainedMessage[]) =>
      judgeRun({
        ...run,
        requested: results.length,
        results,
        expectations: { ...CONTRACT, valid: ['queued', '503'] },
        messages: [...run.messages, ...messages],
        mayBeQueued: (result) => result.outcome === '503',
      }).problems;

    // Act
    const accounted = judged([message('c'), message('c'), message('c'), message('d')]);
    const beyond = judged([
      message('c'),
      message('c'),
      message('c'),
      message('c'),
      message('d'),
      message('d'),
    ]);
    const fifo = judgeRun({
      ...run,
      requested: results.length,
      results,
      expectations: { ...CONTRACT, valid: ['queued', '503'] },
      messages: [message('a'), message('b'), message('c'), message('c'), message('d')],
      standardQueue: false,
      mayBeQueued: (result) => result.outcome === '503',
    }).problems;

    // Assess
    expect(accounted).toEqual([]);
    expect(beyond).toEqual([
      '1 extra copies of calls answered 200 queued are in the queue (more messages than 200 queued answers for the same body)',
      '1 messages in the queue were never answered 200 queued (valid)',
    ]);
    expect(fifo).toEqual([
      '1 extra copies of calls answered 200 queued are in the queue (more messages than 200 queued answers for the same body)',
    ]);
  });

  it('reports a message with a body the run never sent', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({ ...run, messages: [...run.messages, message('altered')] });

    // Assess
    expect(verdict.problems).toEqual([
      '1 messages in the queue were never answered 200 queued (unknown (a body this run never sent))',
    ]);
  });

  it('reports answers outside the contract, a 503 without Retry-After and transport errors', () => {
    // Prepare
    const results = [
      answer('forged', 'f', 'queued'),
      answer('valid', 'v', '503'),
      { ...answer('valid', 'w', 'error'), error: 'socket hang up' },
    ];

    // Act
    const verdict = judgeRun({
      requested: 3,
      results,
      messages: [message('f')],
      expectations: { ...CONTRACT, valid: ['queued', '503'] },
      standardQueue: true,
    });

    // Assess
    expect(verdict.problems).toEqual([
      '1 forged requests answered 200 queued (contract: 401)',
      '1 valid requests answered no answer (contract: 200 queued or 503)',
      'first transport error: socket hang up',
      '1 answers 503 without Retry-After',
    ]);
  });

  it('reports copies of one body with different dedup_keys, and messages without one', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({
      ...run,
      messages: [message('a', 'one'), { digest: 'b', dedupKey: undefined }, message('a', 'two')],
    });

    // Assess
    expect(verdict.problems).toEqual([
      '1 messages have no dedup_key attribute',
      '1 bodies stored more than once carry different dedup_keys',
    ]);
  });

  it('expects a replayed body once on a FIFO queue, without dedup_key attributes', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({
      ...run,
      standardQueue: false,
      messages: [
        { digest: 'a', dedupKey: undefined },
        { digest: 'b', dedupKey: undefined },
      ],
    });

    // Assess
    expect(verdict.problems).toEqual([]);
  });

  it('fails a run cut short by its time limit', () => {
    // Prepare
    const run = passingRun();

    // Act
    const verdict = judgeRun({ ...run, requested: 5000 });

    // Assess
    expect(verdict.problems).toEqual(['time limit reached: 4993 of 5000 requests were not sent']);
  });

  it('pairs every call answered 200 with an archive record of its body and verdict, a replay with its own, and takes records beyond them', () => {
    // Prepare
    const run = passingRun();
    const archived: ArchivedCall[] = [
      { digest: 'a', verdict: 'queued' },
      { digest: 'a', verdict: 'queued' },
      { digest: 'b', verdict: 'queued' },
      // Archived twice (at least once), and a call whose answer was lost.
      { digest: 'b', verdict: 'queued' },
      { digest: 'x', verdict: 'queued' },
      { digest: 'i', verdict: 'ignored' },
    ];

    // Act
    const verdict = judgeRun({ ...run, archived });
    const notJudged = judgeRun(run);

    // Assess
    expect(verdict.problems).toEqual([]);
    expect(verdict.archived).toBe(4);
    expect(notJudged.archived).toBeUndefined();
  });

  it('reports calls answered 200 without their archive record, by verdict', () => {
    // Prepare: the replay's record is missing, and the ignored call's holds another verdict.
    const run = passingRun();
    const archived: ArchivedCall[] = [
      { digest: 'a', verdict: 'queued' },
      { digest: 'b', verdict: 'queued' },
      { digest: 'i', verdict: 'queued' },
    ];

    // Act
    const verdict = judgeRun({ ...run, archived });

    // Assess
    expect(verdict.problems).toEqual([
      '1 calls answered 200 queued have no record in the archive',
      '1 calls answered 200 ignored have no record in the archive',
    ]);
    expect(verdict.archived).toBe(2);
  });
});
