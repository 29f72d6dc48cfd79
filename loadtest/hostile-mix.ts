/**
 * One run of the hostile mix against a receiver: warm-up, timed calls, what its queue and
 * archive hold afterwards, and the verdict on them. Used by `npm run loadtest` and the bench's
 * throughput section.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { sqsClientFor } from '../devkit/sqs-client.js';
import { type DrainedQueue, drainQueue } from './drain-queue.js';
import type { LoadtestOptions } from './options.js';
import { readRunArchive } from './read-archive.js';
import { isRunBody, requestMix } from './request-mix.js';
import { type LoadRun, MAX_BUILT_AHEAD, runLoad } from './run-load.js';
import { archivedCalls, CONTRACT, isAnswered200, judgeRun, type Verdict } from './verdict.js';

/**
 * Room, besides the time limit, between signing a request ahead and the receiver reading its
 * clock: the build itself (about 2 s for {@link MAX_BUILT_AHEAD} on a 2-core machine) and a call
 * waiting its turn in a busy receiver.
 */
export const BUILD_AHEAD_MARGIN_SECONDS = 60;

/** Where the calls go and what they are signed with. */
export interface Target {
  readonly webhookUrl: string;
  /**
   * The queue the receiver forwards to, only when this run owns it (the npm start it started):
   * it is drained, every message in it received. A queue others send to or read from is never
   * read: a receive hides a message for its visibility timeout and counts against its
   * maxReceiveCount, whoever sent it, so the run judges that receiver by its archive instead.
   */
  readonly queueUrl?: string;
  readonly key: string;
  /**
   * The receiver's local archive (`http://127.0.0.1:<port>/<bucket>`), when the run knows it,
   * and the state folder that holds its credentials: every call answered 200 is then looked for
   * there too.
   */
  readonly archiveUrl?: string;
  readonly archiveStateDir?: string;
}

/** The mix's shape: how many calls, how many at once, its seed, its time limit and the limits it straddles. */
export type HostileMixOptions = Pick<
  LoadtestOptions,
  'requests' | 'concurrency' | 'seed' | 'timeLimitSeconds' | 'warmUpSeconds' | 'config'
>;

/**
 * Whether the timed calls may be signed before their clock starts: no call starts after the time
 * limit, so a signature made ahead is at most the margin and the limit old when it is checked.
 *
 * @param timeLimitSeconds - `--time-limit`
 * @param toleranceSeconds - the receiver's `SIGNATURE_TOLERANCE_SECONDS`
 */
export function mayBuildAhead(timeLimitSeconds: number, toleranceSeconds: number): boolean {
  return timeLimitSeconds + BUILD_AHEAD_MARGIN_SECONDS <= toleranceSeconds;
}

/**
 * Size of the warm-up's mix: more calls than the longest warm-up sends on a machine serving
 * 1,500 a second; the warm-up stops early, and says so by its count, on a faster one.
 */
const WARM_UP_MIX_SIZE = 100_000;

/** One hostile-mix run: its answers, what its queue held afterwards, and the verdict on both. */
export interface HostileMixRun {
  /** The warm-up's answers (none when `warmUpSeconds` is 0): judged with the run, not timed. */
  readonly warmUp: LoadRun;
  /** The timed calls' answers. */
  readonly run: LoadRun;
  /** What the run's own queue held; `undefined` when it has none (see {@link Target.queueUrl}). */
  readonly queue: DrainedQueue | undefined;
  readonly verdict: Verdict;
}

/**
 * Sends the hostile mix to `target`, drains its queue when the run owns one, reads the run's
 * records from its archive when it has one, and judges them against the contract. Used by
 * `npm run loadtest` and the bench's throughput section.
 *
 * @param options - the mix
 * @param target - where the calls go, its queue and archive, and the key to sign with
 * @param env - the SQS client's environment (endpoint, credentials)
 * @throws the SDK's error when the queue cannot be drained
 */
export async function runHostileMix(
  options: HostileMixOptions,
  target: Target,
  env: NodeJS.ProcessEnv,
): Promise<HostileMixRun> {
  const { config } = options;
  // The warm-up has its own run id, so its bodies never repeat the timed calls'.
  const runIds = { timed: randomBytes(4).toString('hex'), warmUp: randomBytes(4).toString('hex') };
  const since = new Date();
  const mix = (runId: string, count: number) =>
    requestMix({
      count,
      key: target.key,
      runId,
      seed: options.seed,
      toleranceSeconds: config.toleranceSeconds,
      maxBodyBytes: config.maxBodyBytes,
      now: () => Math.floor(Date.now() / 1000),
    });
  const load = { url: target.webhookUrl, concurrency: options.concurrency };
  const warmUp: LoadRun =
    options.warmUpSeconds === 0
      ? { results: [], elapsedMs: 0 }
      : await runLoad({
          ...load,
          requests: mix(runIds.warmUp, WARM_UP_MIX_SIZE),
          timeLimitMs: options.warmUpSeconds * 1000,
        });
  const run = await runLoad({
    ...load,
    requests: mix(runIds.timed, options.requests),
    timeLimitMs: options.timeLimitSeconds * 1000,
    ...(mayBuildAhead(options.timeLimitSeconds, config.toleranceSeconds)
      ? { buildAhead: MAX_BUILT_AHEAD }
      : {}),
  });
  const results = [...warmUp.results, ...run.results];
  const isOurs = (body: string): boolean =>
    isRunBody(body, runIds.timed) || isRunBody(body, runIds.warmUp);
  const queue =
    target.queueUrl === undefined ? undefined : await drainOwnQueue(target.queueUrl, isOurs, env);
  const archive =
    target.archiveUrl === undefined || target.archiveStateDir === undefined
      ? undefined
      : await readRunArchive({
          archiveUrl: target.archiveUrl,
          stateDir: target.archiveStateDir,
          since,
          isOurs,
          complete: (calls) =>
            archivedCalls(results, calls) === results.filter(isAnswered200).length,
        }).then(
          (archived) => ({ archived }),
          (error: Error) => ({ archiveUnreadable: `${target.archiveUrl}: ${error.message}` }),
        );
  const verdict = judgeRun({
    // The warm-up sends for a time, not a number of calls: what it sent is what it was asked.
    requested: warmUp.results.length + options.requests,
    results,
    ...(queue === undefined ? {} : { messages: queue.messages }),
    expectations: CONTRACT,
    standardQueue: !target.queueUrl?.endsWith('.fifo'),
    ...archive,
  });
  return { warmUp, run, queue, verdict };
}

/** Every message of a queue this run owns, received and deleted (see {@link drainQueue}). */
async function drainOwnQueue(
  queueUrl: string,
  isOurs: (body: string) => boolean,
  env: NodeJS.ProcessEnv,
): Promise<DrainedQueue> {
  const client = sqsClientFor(queueUrl, env);
  try {
    return await drainQueue({ client, queueUrl, isOurs });
  } finally {
    client.destroy();
  }
}
