/**
 * `npm run loadtest`: evidence that under concurrent load the receiver queues every genuine call
 * exactly once, queues nothing else, and refuses forged, stale and oversized calls with the
 * contract's status.
 * @module
 */
import { resolve } from 'node:path';
import { DOTENV_FILE, findWebhookSecret } from '../devkit/dotenv.js';
import { type LocalProcess, startLocalProcess } from '../devkit/local-process.js';
import { LOCAL_PORTS, localStateDir } from '../devkit/local-run.js';
import {
  isEntryPoint,
  processIo,
  runTool,
  type ToolIo,
  urlWithoutPassword,
} from '../devkit/tool-io.js';
import {
  BUILD_AHEAD_MARGIN_SECONDS,
  type HostileMixRun,
  runHostileMix,
  type Target,
} from './hostile-mix.js';
import { DEFAULT_WARM_UP_SECONDS, LIMITS, type LoadtestOptions, parseOptions } from './options.js';
import { type QueueDepth, readQueueDepth } from './queue-depth.js';
import { MAX_BUILT_AHEAD } from './run-load.js';
import { formatSummary } from './summary.js';
import { CONTRACT } from './verdict.js';

const USAGE = `Usage: npm run loadtest -- [--requests N] [--concurrency C] [--url URL] [--queue-url URL]
                            [--seed N] [--time-limit SECONDS] [--warm-up SECONDS]

Sends a mix of webhook calls to a receiver on this machine and checks that forged, stale and
oversized calls got 401, 401 and 413, that every call answered 200 has its record in the
archive, and, for the npm start it starts, that every call answered 200 queued has exactly one
message with the identical body in its queue and that no other message exists.

  --requests N          number of calls (default 5000, at most 100000)
  --concurrency C       calls in flight at once, one connection each (default 20, at most 256)
  --url URL             a receiver already running on this machine (npm start in another
                        terminal); by default npm start is started as a child process on free
                        ports with its own key and queue, and stopped afterwards
  --queue-url URL       with --url: the queue it forwards to, whose depth (visible and in
                        flight) is reported before and after the run; read from its attributes
                        only, never received from
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
the receiver reads them. No message of its queue is ever received (--queue-url reads only its
depth): other senders' messages are there, and a receive would hide them from their consumer
and count against their maxReceiveCount. The archive of that npm start (on ${LOCAL_PORTS.archive.variable}, default ${LOCAL_PORTS.archive.default}, with the credentials in its
LOCAL_STATE_DIR) is read instead, and
the messages of the run stay in its queue. Only loopback URLs are accepted: this is a test of
the local run, not of a deployed endpoint.

Exit status: 0 every check passed, 1 a check failed or the receiver did not start, 2 usage error.`;

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
    target = {
      webhookUrl: options.url,
      archiveUrl: options.archiveUrl,
      archiveStateDir: localStateDir(io.env, io.projectDir),
      key: found.secret,
    };
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

async function loadAndCheck(options: LoadtestOptions, target: Target, io: ToolIo): Promise<number> {
  io.out(
    `Sending ${options.requests} calls to ${urlWithoutPassword(target.webhookUrl)} with ${options.concurrency} connections${options.warmUpSeconds === 0 ? '' : `, after ${options.warmUpSeconds} s of warm-up`}...`,
  );
  const { queueUrl } = options;
  let before: QueueDepth | undefined;
  try {
    before = queueUrl === undefined ? undefined : await readQueueDepth(queueUrl, io.env);
  } catch (error) {
    io.err(
      `Could not read the depth of ${urlWithoutPassword(queueUrl ?? '')}: ${(error as Error).message}`,
    );
    return 1;
  }
  let mix: HostileMixRun;
  try {
    mix = await runHostileMix(options, target, io.env);
  } catch (error) {
    io.err(`Could not drain ${target.queueUrl}: ${(error as Error).message}`);
    return 1;
  }
  const queueDepth =
    queueUrl === undefined || before === undefined
      ? undefined
      : {
          url: queueUrl,
          before,
          // The run's verdict stands without it: the depth is reported, not judged.
          after: await readQueueDepth(queueUrl, io.env).catch((error: Error) => error.message),
        };
  const { warmUp, run, queue, verdict } = mix;
  io.out(
    formatSummary({
      url: target.webhookUrl,
      requested: options.requests,
      concurrency: options.concurrency,
      warmUp,
      run,
      queue,
      ...(queueDepth === undefined ? {} : { queueDepth }),
      expectations: CONTRACT,
      verdict,
    }),
  );
  return verdict.problems.length === 0 ? 0 : 1;
}

if (isEntryPoint(import.meta.url)) {
  // Exit explicitly: keep-alive sockets of the SDK must not hold a finished run open.
  process.exit(await main(process.argv.slice(2), processIo()));
}
