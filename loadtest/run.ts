/**
 * `npm run loadtest`: evidence that under concurrent load the receiver queues every genuine call
 * exactly once, queues nothing else, and refuses forged, stale and oversized calls with the
 * contract's status.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { DOTENV_FILE, findWebhookSecret } from '../devkit/dotenv.js';
import { type LocalProcess, startLocalProcess } from '../devkit/local-process.js';
import { LOCAL_PORTS, LOOPBACK_NAMES_TEXT, localPort, localQueueUrl } from '../devkit/local-run.js';
import { isLoopbackUrl, sqsClientFor } from '../devkit/sqs-client.js';
import {
  isEntryPoint,
  isHttpUrl,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
  urlWithoutPassword,
} from '../devkit/tool-io.js';
import { ConfigError } from '../lambda/contract/environment.js';
import { loadConfig, type ReceiverConfig } from '../lambda/receiver/config.js';
import { type DrainedQueue, drainQueue } from './drain-queue.js';
import { readRunArchive } from './read-archive.js';
import { isRunBody, requestMix } from './request-mix.js';
import { type LoadRun, MAX_BUILT_AHEAD, runLoad } from './run-load.js';
import { formatSummary } from './summary.js';
import { CONTRACT, isAnswered200, judgeRun, type Verdict } from './verdict.js';

/** Bounds that keep a mistyped number from turning into an hour-long run. */
const LIMITS = {
  requests: 100_000,
  concurrency: 256,
  timeLimitSeconds: 3600,
  warmUpSeconds: 60,
} as const;

/**
 * Seconds of the mix sent before the timed calls by default (the bench warms up its valid calls
 * as long): a fresh Node process compiles its hot paths over its first few thousand calls, and a
 * run timed from the first call measures that compilation more than the receiver
 * (`docs/performance.md` has the figures).
 */
export const DEFAULT_WARM_UP_SECONDS = 3;

/**
 * Room, besides the time limit, between signing a request ahead and the receiver reading its
 * clock: the build itself (about 2 s for {@link MAX_BUILT_AHEAD} on a 2-core machine) and a call
 * waiting its turn in a busy receiver.
 */
const BUILD_AHEAD_MARGIN_SECONDS = 60;

const USAGE = `Usage: npm run loadtest -- [--requests N] [--concurrency C] [--url URL] [--queue-url URL]
                            [--seed N] [--time-limit SECONDS] [--warm-up SECONDS]

Sends a mix of webhook calls to a receiver on this machine, drains its queue, and checks that
every call answered 200 queued has exactly one message with the identical body, that no other
message exists, that forged, stale and oversized calls got 401, 401 and 413, and (without --url)
that every call answered 200 has its record in the archive.

  --requests N          number of calls (default 5000, at most 100000)
  --concurrency C       calls in flight at once, one connection each (default 20, at most 256)
  --url URL             a receiver already running on this machine (npm start in another
                        terminal); by default npm start is started as a child process on free
                        ports with its own key, and stopped afterwards
  --queue-url URL       with --url: the queue it forwards to (default the local queue on
                        ${LOCAL_PORTS.queue.variable}, ${LOCAL_PORTS.queue.default})
  --seed N              seed of the mix and the generated bookings (default 1)
  --time-limit SECONDS  no timed call is started after this (default 120); unsent calls fail
                        the run. The first ${MAX_BUILT_AHEAD.toLocaleString('en-US')} timed calls are signed before their clock
                        starts, unless this plus ${BUILD_AHEAD_MARGIN_SECONDS} s is beyond SIGNATURE_TOLERANCE_SECONDS
  --warm-up SECONDS     first send the mix untimed for this long, while Node compiles its hot
                        paths (default ${DEFAULT_WARM_UP_SECONDS}, at most ${LIMITS.warmUpSeconds}, 0 for none); those calls are
                        judged like the others, and the table counts them
  --help                show this help

The mix: 50% genuine bookings, 10% replays (an earlier genuine call resent byte for byte, which a
standard queue stores again under the same dedup_key), 15% forged (wrong key or a body changed
after signing), 10% stale (signed 60 s beyond SIGNATURE_TOLERANCE_SECONDS), 5% oversized (1 KiB
over MAX_BODY_BYTES), 10% event_cancelled (200 ignored with the default FORWARD_EVENTS).

With --url, calls are signed with WEBHOOK_SECRET (environment, then .env), and
SIGNATURE_TOLERANCE_SECONDS, MAX_BODY_BYTES and FORWARD_EVENTS are read from the environment as
the receiver reads them. Only this run's messages are deleted from the queue. Only loopback URLs
are accepted: this is a test of the local run, not of a deployed endpoint.

Exit status: 0 every check passed, 1 a check failed or the receiver did not start, 2 usage error.`;

export interface LoadtestOptions {
  readonly requests: number;
  readonly concurrency: number;
  readonly url: string | undefined;
  readonly queueUrl: string;
  readonly seed: number;
  readonly timeLimitSeconds: number;
  /** Seconds of the mix sent before the timed calls; 0 for none. */
  readonly warmUpSeconds: number;
  /** The receiver settings the mix depends on. */
  readonly config: ReceiverConfig;
}

/** Where the calls go and what they are signed with. */
export interface Target {
  readonly webhookUrl: string;
  readonly queueUrl: string;
  readonly key: string;
  /**
   * The receiver's local archive (`http://127.0.0.1:<port>/<bucket>`), when the run knows it
   * (the npm start it started): every call answered 200 is then looked for there too.
   */
  readonly archiveUrl?: string;
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status.
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 */
export function main(args: readonly string[], io: ToolIo): Promise<number> {
  return runTool(
    io,
    { name: 'loadtest', usage: USAGE },
    () => parseOptions(args, io.env),
    (options) => loadtest(options, io),
  );
}

async function loadtest(options: LoadtestOptions, io: ToolIo): Promise<number> {
  let child: LocalProcess | undefined;
  let target: Target;
  if (options.url === undefined) {
    io.out('Starting npm start on free ports...');
    try {
      child = await startLocalProcess({ projectDir: io.projectDir, env: io.env });
    } catch (error) {
      io.err((error as Error).message);
      return 1;
    }
    target = child;
  } else {
    const found = await findWebhookSecret(io.env, resolve(io.projectDir, DOTENV_FILE));
    if (found === undefined) {
      io.err('No key to sign with: set WEBHOOK_SECRET, or run npm start once (it writes .env)');
      return 1;
    }
    target = { webhookUrl: options.url, queueUrl: options.queueUrl, key: found.secret };
  }
  let status: number;
  try {
    status = await loadAndCheck(options, target, io);
  } finally {
    const code = await child?.stop();
    if (child !== undefined && code !== 0) {
      io.err(`npm start exited with status ${code} after the run:\n${child.output()}`);
      status = 1;
    }
  }
  return status;
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
  readonly queue: DrainedQueue;
  readonly verdict: Verdict;
}

/**
 * Sends the hostile mix to `target`, drains this run's messages from its queue, reads their
 * records from its archive when it has one, and judges them against the contract. Used by
 * `npm run loadtest` and the bench's throughput section.
 *
 * @param options - the mix
 * @param target - where the calls go, its queue and the key to sign with
 * @param env - the SQS client's environment (endpoint, credentials)
 * @throws the SDK's error when the queue cannot be drained or the archive read
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
  const client = sqsClientFor(target.queueUrl, env);
  let queue: DrainedQueue;
  try {
    queue = await drainQueue({ client, queueUrl: target.queueUrl, isOurs });
  } finally {
    client.destroy();
  }
  const archived =
    target.archiveUrl === undefined
      ? undefined
      : await readRunArchive({
          archiveUrl: target.archiveUrl,
          since,
          isOurs,
          expected: results.filter(isAnswered200).length,
        });
  const verdict = judgeRun({
    // The warm-up sends for a time, not a number of calls: what it sent is what it was asked.
    requested: warmUp.results.length + options.requests,
    results,
    messages: queue.messages,
    expectations: CONTRACT,
    standardQueue: !target.queueUrl.endsWith('.fifo'),
    ...(archived === undefined ? {} : { archived }),
  });
  return { warmUp, run, queue, verdict };
}

async function loadAndCheck(options: LoadtestOptions, target: Target, io: ToolIo): Promise<number> {
  io.out(
    `Sending ${options.requests} calls to ${urlWithoutPassword(target.webhookUrl)} with ${options.concurrency} connections${options.warmUpSeconds === 0 ? '' : `, after ${options.warmUpSeconds} s of warm-up`}...`,
  );
  let mix: HostileMixRun;
  try {
    mix = await runHostileMix(options, target, io.env);
  } catch (error) {
    io.err(
      `Could not drain ${urlWithoutPassword(target.queueUrl)} or read the archive: ${(error as Error).message}`,
    );
    return 1;
  }
  const { warmUp, run, queue, verdict } = mix;
  io.out(
    formatSummary({
      url: target.webhookUrl,
      requested: options.requests,
      concurrency: options.concurrency,
      warmUp,
      run,
      queue,
      expectations: CONTRACT,
      verdict,
      sharedQueue: options.url !== undefined,
    }),
  );
  return verdict.problems.length === 0 ? 0 : 1;
}

/**
 * The receiver's limits, validated exactly as the receiver validates them at cold start, so the
 * stale and oversized calls straddle the limits it really applies. Key and queue do not matter
 * here: placeholders stand in for them.
 */
export function receiverSettings(env: NodeJS.ProcessEnv): ReceiverConfig {
  let config: ReceiverConfig;
  try {
    config = loadConfig({
      ...env,
      SECRET_ID: undefined,
      WEBHOOK_SECRET: 'placeholder',
      QUEUE_URL: 'http://127.0.0.1/placeholder',
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  if (config.forwardEvents === '*' || config.forwardEvents.has('event_cancelled')) {
    throw new UsageError(
      'FORWARD_EVENTS forwards event_cancelled: the mix relies on it being answered 200 ignored',
    );
  }
  return config;
}

function parseOptions(args: readonly string[], env: NodeJS.ProcessEnv): LoadtestOptions | 'help' {
  const values = parseToolArgs(args, {
    requests: { type: 'string' },
    concurrency: { type: 'string' },
    url: { type: 'string' },
    'queue-url': { type: 'string' },
    seed: { type: 'string' },
    'time-limit': { type: 'string' },
    'warm-up': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values['queue-url'] !== undefined && values.url === undefined) {
    throw new UsageError('--queue-url goes with --url (the started npm start has its own queue)');
  }
  const url = values.url === undefined ? undefined : loopbackUrl('--url', values.url);
  const queueUrl = loopbackUrl(
    '--queue-url',
    values['queue-url'] ?? localQueueUrl(localPort(env, 'queue')),
  );
  return {
    requests: wholeNumber('--requests', values.requests, 5000, 1, LIMITS.requests),
    concurrency: wholeNumber('--concurrency', values.concurrency, 20, 1, LIMITS.concurrency),
    url,
    queueUrl,
    seed: wholeNumber('--seed', values.seed, 1, 0, 2 ** 32 - 1),
    timeLimitSeconds: wholeNumber(
      '--time-limit',
      values['time-limit'],
      120,
      1,
      LIMITS.timeLimitSeconds,
    ),
    warmUpSeconds: wholeNumber(
      '--warm-up',
      values['warm-up'],
      DEFAULT_WARM_UP_SECONDS,
      0,
      LIMITS.warmUpSeconds,
    ),
    config: receiverSettings(env),
  };
}

function wholeNumber(
  name: string,
  text: string | undefined,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  if (text === undefined) return fallback;
  const value = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) {
    throw new UsageError(
      `${name} must be a whole number from ${minimum} to ${maximum}, got '${text}'`,
    );
  }
  return value;
}

function loopbackUrl(name: string, text: string): string {
  if (!isHttpUrl(text))
    throw new UsageError(`${name} must be an http URL, got '${urlWithoutPassword(text)}'`);
  if (!isLoopbackUrl(text)) {
    throw new UsageError(
      `${name} must point at this machine (${LOOPBACK_NAMES_TEXT}), got '${urlWithoutPassword(text)}'`,
    );
  }
  return text;
}

if (isEntryPoint(import.meta.url)) {
  // Exit explicitly: keep-alive sockets of the SDK must not hold a finished run open.
  process.exit(await main(process.argv.slice(2), processIo()));
}
