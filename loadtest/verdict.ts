import type { DrainedMessage } from './drain-queue.js';
import type { LoadResult, Outcome } from './run-load.js';

/** For each request kind, the outcomes that satisfy the contract. */
export type Expectations = Readonly<Record<string, readonly Outcome[]>>;

/** The receiver's contract for the kinds of the default mix (see `requestMix`). */
export const CONTRACT: Expectations = {
  valid: ['queued'],
  // On a standard queue a replay inside the tolerance is stored again, with the same dedup_key.
  replayed: ['queued'],
  forged: ['401'],
  stale: ['401'],
  oversized: ['413'],
  ignored: ['ignored'],
};

/** An archive record of a call answered 200: its body's digest and the verdict it holds. */
export interface ArchivedCall {
  readonly digest: string;
  readonly verdict: 'queued' | 'ignored';
}

/** What the run is judged on. */
export interface VerdictInput {
  /** How many requests the run was asked to send. */
  readonly requested: number;
  readonly results: readonly LoadResult[];
  /**
   * Every message of this run found in the queue afterwards.
   * @default the queue is not judged (the run did not own it)
   */
  readonly messages?: readonly DrainedMessage[];
  readonly expectations: Expectations;
  /**
   * A standard queue: every message carries `dedup_key`, the same for copies of one body, and a
   * body answered queued twice is stored twice. A FIFO queue stores it once.
   */
  readonly standardQueue: boolean;
  /**
   * Calls whose answer does not say whether their message was stored: a 503 for a send the queue
   * took but whose answer an outage cut off (the sender's resend is then a copy with the same
   * `dedup_key`, which delivery at least once allows). A message of such a call is no problem.
   * @default none
   */
  readonly mayBeQueued?: (result: LoadResult) => boolean;
  /**
   * This run's records in the archive, when the archive is judged: every call answered 200 must
   * have one with its body and verdict. More are no problem (the archive keeps a call at least
   * once, and a call whose answer was lost may be archived).
   * @default the archive is not judged
   */
  readonly archived?: readonly ArchivedCall[];
  /** Why the archive, which was to be judged, could not be read: a problem of the run. */
  readonly archiveUnreadable?: string;
}

/** Counts and, if the run broke the contract, what went wrong. */
export interface Verdict {
  /** One sentence per broken rule; empty when the run passed. */
  readonly problems: string[];
  /** Answers per kind and outcome. */
  readonly counts: ReadonlyMap<string, ReadonlyMap<Outcome, number>>;
  /** Messages that pair with a `queued` answer (0 when the queue was not judged). */
  readonly matched: number;
  /** Bodies answered `queued` more than once (replays); each answer has its own message. */
  readonly repeatedBodies: number;
  /** Calls answered 200 (`queued` or `ignored`): each must have its archive record. */
  readonly answered200: number;
  /** Calls answered 200 that have their archive record; `undefined` when it was not judged. */
  readonly archived?: number;
}

/**
 * Checks a run against the contract: every answer is one the contract gives its kind, every 503
 * carries `Retry-After`, and the queue holds exactly one message per `queued` answer with the
 * identical body (on a standard queue a body answered `queued` twice, a replay, has two), and
 * nothing else.
 *
 * @param input - answers, queue contents and expectations
 */
export function judgeRun(input: VerdictInput): Verdict {
  const problems: string[] = [];
  const notSent = input.requested - input.results.length;
  if (notSent > 0) {
    problems.push(`time limit reached: ${notSent} of ${input.requested} requests were not sent`);
  }
  const counts = countOutcomes(input.results);
  for (const [kind, outcomes] of counts) {
    const allowed = input.expectations[kind] ?? [];
    for (const [outcome, count] of outcomes) {
      if (!allowed.includes(outcome)) {
        problems.push(
          `${count} ${kind} requests answered ${describeOutcome(outcome)} (contract: ${allowed.map(describeOutcome).join(' or ') || 'none'})`,
        );
      }
    }
  }
  const errors = input.results.filter((result) => result.outcome === 'error');
  if (errors.length > 0) {
    problems.push(`first transport error: ${errors[0]?.error ?? 'unknown'}`);
  }
  const withoutRetryAfter = input.results.filter(
    (result) => result.outcome === '503' && !result.retryAfter,
  ).length;
  if (withoutRetryAfter > 0) problems.push(`${withoutRetryAfter} answers 503 without Retry-After`);

  const pairing =
    input.messages === undefined
      ? { problems: [], matched: 0, repeatedBodies: 0 }
      : pairMessages(
          input.results,
          input.messages,
          input.standardQueue,
          input.mayBeQueued ?? (() => false),
        );
  problems.push(...pairing.problems);
  if (input.standardQueue && input.messages !== undefined) {
    problems.push(...dedupKeyProblems(input.messages));
  }
  if (input.archiveUnreadable !== undefined) {
    problems.push(`the archive could not be read (${input.archiveUnreadable})`);
  }
  const archive =
    input.archived === undefined ? undefined : pairArchive(input.results, input.archived);
  if (archive !== undefined) problems.push(...archive.problems);
  return {
    problems,
    counts,
    matched: pairing.matched,
    repeatedBodies: pairing.repeatedBodies,
    answered200: input.results.filter(isAnswered200).length,
    ...(archive === undefined ? {} : { archived: archive.paired }),
  };
}

/** Whether a call was answered 200 (`queued` or `ignored`): an answered call, to be archived. */
export function isAnswered200(result: LoadResult): boolean {
  return result.outcome === 'queued' || result.outcome === 'ignored';
}

/** `200 queued`, `200 ignored`, `401`, `no answer`. */
export function describeOutcome(outcome: Outcome): string {
  if (outcome === 'queued' || outcome === 'ignored') return `200 ${outcome}`;
  return outcome === 'error' ? 'no answer' : outcome;
}

function countOutcomes(results: readonly LoadResult[]): Map<string, Map<Outcome, number>> {
  const counts = new Map<string, Map<Outcome, number>>();
  for (const { kind, outcome } of results) {
    const perKind = counts.get(kind) ?? new Map<Outcome, number>();
    perKind.set(outcome, (perKind.get(outcome) ?? 0) + 1);
    counts.set(kind, perKind);
  }
  return counts;
}

function tally<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

function pairMessages(
  results: readonly LoadResult[],
  messages: readonly DrainedMessage[],
  standardQueue: boolean,
  mayBeQueued: (result: LoadResult) => boolean,
): { problems: string[]; matched: number; repeatedBodies: number } {
  const queued = tally(
    results.filter((result) => result.outcome === 'queued'),
    (result) => result.digest,
  );
  const unsure = tally(
    results.filter((result) => result.outcome !== 'queued' && mayBeQueued(result)),
    (result) => result.digest,
  );
  const stored = tally(messages, (message) => message.digest);
  const kindOf = new Map(results.map((result) => [result.digest, result.kind]));
  let lost = 0;
  let matched = 0;
  let repeatedBodies = 0;
  let extraCopies = 0;
  const unanswered = new Map<string, number>();
  for (const digest of new Set([...queued.keys(), ...stored.keys()])) {
    const timesQueued = queued.get(digest) ?? 0;
    // A FIFO queue stores a body once however often it was answered queued (deduplication id).
    const answered = standardQueue ? timesQueued : Math.min(timesQueued, 1);
    const found = stored.get(digest) ?? 0;
    matched += Math.min(answered, found);
    if (timesQueued > 1) repeatedBodies += 1;
    if (found < answered) lost += answered - found;
    // Messages beyond the answers that account for them: 200 queued, or unsure (mayBeQueued);
    // a FIFO queue keeps one per body whatever the answers.
    const accounted = answered + (unsure.get(digest) ?? 0);
    const excess = found - (standardQueue ? accounted : Math.min(accounted, 1));
    if (excess > 0 && answered > 0) extraCopies += excess;
    if (excess > 0 && answered === 0) {
      const kind = kindOf.get(digest) ?? 'unknown (a body this run never sent)';
      unanswered.set(kind, (unanswered.get(kind) ?? 0) + excess);
    }
  }
  const problems: string[] = [];
  if (lost > 0) problems.push(`${lost} calls answered 200 queued have no message in the queue`);
  if (extraCopies > 0) {
    // Seen when the receiver's SQS client times out on a send that SQS did store, and retries.
    problems.push(
      `${extraCopies} extra copies of calls answered 200 queued are in the queue (more messages than 200 queued answers for the same body)`,
    );
  }
  for (const [kind, count] of unanswered) {
    problems.push(`${count} messages in the queue were never answered 200 queued (${kind})`);
  }
  return { problems, matched, repeatedBodies };
}

/**
 * How many calls answered 200 have an archive record of their body and verdict: all of them
 * once the archive holds the run. Copies of a record (the archive keeps a call at least once)
 * pair with one call each, so a count of records can reach the calls' while one is missing.
 */
export function archivedCalls(
  results: readonly LoadResult[],
  archived: readonly ArchivedCall[],
): number {
  return pairArchive(results, archived).paired;
}

/** Pairs every call answered 200 with an archive record of its body and verdict. */
function pairArchive(
  results: readonly LoadResult[],
  archived: readonly ArchivedCall[],
): { problems: string[]; paired: number } {
  const problems: string[] = [];
  let paired = 0;
  for (const verdict of ['queued', 'ignored'] as const) {
    const answered = tally(
      results.filter((result) => result.outcome === verdict),
      (result) => result.digest,
    );
    const kept = tally(
      archived.filter((call) => call.verdict === verdict),
      (call) => call.digest,
    );
    let missing = 0;
    for (const [digest, count] of answered) {
      const found = Math.min(count, kept.get(digest) ?? 0);
      paired += found;
      missing += count - found;
    }
    if (missing > 0) {
      problems.push(`${missing} calls answered 200 ${verdict} have no record in the archive`);
    }
  }
  return { problems, paired };
}

function dedupKeyProblems(messages: readonly DrainedMessage[]): string[] {
  const problems: string[] = [];
  const missing = messages.filter((message) => message.dedupKey === undefined).length;
  if (missing > 0) problems.push(`${missing} messages have no dedup_key attribute`);
  const keysPerBody = new Map<string, Set<string | undefined>>();
  for (const { digest, dedupKey } of messages) {
    keysPerBody.set(digest, (keysPerBody.get(digest) ?? new Set()).add(dedupKey));
  }
  const split = [...keysPerBody.values()].filter((keys) => keys.size > 1).length;
  if (split > 0) problems.push(`${split} bodies stored more than once carry different dedup_keys`);
  return problems;
}
