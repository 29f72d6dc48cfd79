import { urlWithoutPassword } from '../devkit/tool-io.js';
import type { DrainedQueue } from './drain-queue.js';
import type { QueueDepth } from './queue-depth.js';
import type { LoadRun, Outcome } from './run-load.js';
import { describeOutcome, type Expectations, type Verdict } from './verdict.js';

/** What {@link formatSummary} reports on. */
export interface SummaryInput {
  readonly url: string;
  readonly requested: number;
  readonly concurrency: number;
  /** The untimed calls sent first (no results when there was no warm-up); the table counts them. */
  readonly warmUp: LoadRun;
  /** The timed calls: the throughput and latency figures are theirs. */
  readonly run: LoadRun;
  /** The run's own queue, drained; `undefined` for a receiver it did not start (`--url`). */
  readonly queue: DrainedQueue | undefined;
  /**
   * The depth of a queue the run shares with others (`--queue-url`), before and after the run;
   * `after` is why it could not be read then.
   * @default no depth line
   */
  readonly queueDepth?: {
    readonly url: string;
    readonly before: QueueDepth;
    readonly after: QueueDepth | string;
  };
  readonly expectations: Expectations;
  readonly verdict: Verdict;
}

/**
 * The run as a table (answers per kind and outcome, with the contract's answer), followed by the
 * queue accounting, throughput and latency, and PASS or FAIL with the reasons.
 *
 * @param input - the run, the drained queue and the verdict
 */
export function formatSummary(input: SummaryInput): string {
  const { warmUp, run, verdict, queue } = input;
  const seconds = run.elapsedMs / 1000;
  const latencies = run.results.map((result) => result.endedAt - result.startedAt);
  const lines = [
    `Load test: ${run.results.length} of ${input.requested} requests sent to ${urlWithoutPassword(input.url)}, ${input.concurrency} connections`,
    ...(warmUp.results.length === 0
      ? []
      : [
          `Warm-up: ${warmUp.results.length} calls of the same mix in ${(warmUp.elapsedMs / 1000).toFixed(1)} s before them, judged but not timed (the table counts them)`,
        ]),
    '',
    ...outcomeTable(input.expectations, verdict.counts),
    '',
    queue === undefined
      ? `Queue: not read (--url: other senders' messages are there, and a receive would hide them and count against their maxReceiveCount); the ${queuedAnswers(verdict)} messages of this run's 200 queued answers stay in it`
      : `Queue: ${queue.messages.length} messages of this run drained, ${verdict.matched} paired with a 200 queued answer` +
        ` (${verdict.repeatedBodies} bodies were replayed: answered queued and stored once per call)` +
        (queue.foreign > 0 ? `; ${queue.foreign} messages of other senders left in the queue` : ''),
    ...(input.queueDepth === undefined
      ? []
      : [depthLine(input.queueDepth, queuedAnswers(verdict))]),
    verdict.archived === undefined
      ? 'Archive: not read'
      : `Archive: ${verdict.archived} of ${verdict.answered200} calls answered 200 have their record`,
    `Elapsed: ${seconds.toFixed(1)} s, ${(run.results.length / seconds).toFixed(0)} requests/s,` +
      ` latency p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    '',
  ];
  if (verdict.problems.length === 0) {
    lines.push(
      queue === undefined
        ? 'PASS: every call answered 200 has its archive record with that verdict, and every refused call'
        : 'PASS: every 200 queued answer has exactly one message with the identical body, no message of this run',
      queue === undefined
        ? '      got the contract status.'
        : `      is unaccounted for, every refused call got the contract status${verdict.archived === undefined ? '' : ', and every 200 is archived'}.`,
    );
  } else {
    lines.push('FAIL:', ...verdict.problems.map((problem) => `  - ${problem}`));
  }
  return lines.join('\n');
}

function outcomeTable(
  expectations: Expectations,
  counts: ReadonlyMap<string, ReadonlyMap<Outcome, number>>,
): string[] {
  const kinds = [...new Set([...Object.keys(expectations), ...counts.keys()])];
  const outcomes = orderOutcomes([...counts.values()].flatMap((perKind) => [...perKind.keys()]));
  const header = ['kind', 'sent', 'contract', ...outcomes.map(describeOutcome)];
  const rows = kinds.map((kind) => {
    const perKind = counts.get(kind) ?? new Map<Outcome, number>();
    const sent = [...perKind.values()].reduce((sum, count) => sum + count, 0);
    return [
      kind,
      String(sent),
      (expectations[kind] ?? []).map(describeOutcome).join(' | ') || '-',
      ...outcomes.map((outcome) => String(perKind.get(outcome) ?? 0)),
    ];
  });
  const totals = [
    'total',
    String(rows.reduce((sum, row) => sum + Number(row[1]), 0)),
    '',
    ...outcomes.map((outcome) =>
      String([...counts.values()].reduce((sum, perKind) => sum + (perKind.get(outcome) ?? 0), 0)),
    ),
  ];
  const table = [header, ...rows, totals];
  const widths = header.map((_, column) =>
    Math.max(...table.map((row) => row[column]?.length ?? 0)),
  );
  return table.map((row) =>
    row
      .map((cell, column) =>
        column < 3 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** 200 answers first, then statuses in numeric order, then transport errors. */
function orderOutcomes(outcomes: readonly Outcome[]): Outcome[] {
  const rank = (outcome: Outcome): number =>
    outcome === 'queued'
      ? 0
      : outcome === 'ignored'
        ? 1
        : outcome === 'error'
          ? 1000
          : Number(outcome);
  return [...new Set(outcomes)].sort((a, b) => rank(a) - rank(b));
}

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

/**
 * A shared queue's depth before and after the run, beside the run's own queued count: other
 * senders and consumers move it too, so the two are reported side by side, not compared.
 */
function depthLine(depth: NonNullable<SummaryInput['queueDepth']>, queued: number): string {
  const describe = (at: QueueDepth): string =>
    `${at.visible + at.inFlight} (${at.visible} visible, ${at.inFlight} in flight)`;
  const after =
    typeof depth.after === 'string'
      ? `unreadable after (${depth.after})`
      : `${describe(depth.after)} after`;
  return `Queue depth of ${urlWithoutPassword(depth.url)}: ${describe(depth.before)} before, ${after}; this run queued ${queued}, other senders and consumers count too (read from its attributes, no message received)`;
}

/** How many calls were answered 200 queued. */
function queuedAnswers(verdict: Verdict): number {
  return [...verdict.counts.values()].reduce(
    (sum, perKind) => sum + (perKind.get('queued') ?? 0),
    0,
  );
}
