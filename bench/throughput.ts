import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { startLocalProcess } from '../devkit/local-process.js';
import { STAGE_THROTTLE_DEFAULTS } from '../lambda/contract/capacity-settings.js';
import { signPayload } from '../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../lambda/core/signature-header.js';
import { responseFromOutcome } from '../lambda/receiver/api-gateway.js';
import { type HostileMixRun, runHostileMix } from '../loadtest/hostile-mix.js';
import { DEFAULT_WARM_UP_SECONDS, receiverSettings } from '../loadtest/options.js';
import {
  type CpuBreakdown,
  type CpuPart,
  cpuBreakdown,
  dependencyClosure,
  packagesUrl,
  projectUrl,
  readMainThreadProfile,
} from './cpu-profile.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 10;
const SECONDS = 10;
const BODIES = 100;

/**
 * Distinct bookings signed now: each connection loops over them, and the run is far shorter than
 * the 300 s signature tolerance, so every call stays valid.
 */
function signedRequests(path: string, key: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  return Array.from({ length: BODIES }, () => {
    const body = buildBookingPayload();
    return {
      method: 'POST',
      path,
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER_KEY]: signPayload(body, key, timestamp),
      },
      body,
    };
  });
}

/** The hostile mix as the issue measured it: `npm run loadtest -- --requests 3000 --concurrency 16`. */
const HOSTILE_MIX = {
  requests: 3000,
  concurrency: 16,
  seed: 1,
  timeLimitSeconds: 120,
  warmUpSeconds: DEFAULT_WARM_UP_SECONDS,
} as const;

/** A run of the valid calls: autocannon's figures, and when the measured part ran. */
interface ValidCallsRun {
  readonly result: AutocannonResult;
  /** The measured run, in microseconds on the monotonic clock CPU profiles are stamped with. */
  readonly window: { readonly fromUs: number; readonly toUs: number };
  /** CPU milliseconds of this process (autocannon) over the measured run. */
  readonly generatorMs: number;
}

/** Microseconds on the monotonic clock that CPU profiles are stamped with. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * Valid calls under autocannon, the request path at its fastest, against a fresh `npm start`
 * child started with `nodeOptions`: a warm-up, then the measured run.
 */
async function validCalls(nodeOptions: readonly string[] = []): Promise<ValidCallsRun> {
  // The loadtest's start: a clean first run in a scratch folder under .local/, removed at stop.
  const receiver = await startLocalProcess({ projectDir: ROOT, env: process.env, nodeOptions });
  try {
    const url = new URL(receiver.webhookUrl);
    const load = {
      url: url.origin,
      connections: CONNECTIONS,
      requests: signedRequests(url.pathname, receiver.key),
    };
    // Lets the JIT compile the request path and the SDK open its keep-alive connections.
    await autocannon({ ...load, duration: DEFAULT_WARM_UP_SECONDS });
    const fromUs = monotonicUs();
    const cpu = process.cpuUsage();
    const result = await autocannon({ ...load, duration: SECONDS });
    const used = process.cpuUsage(cpu);
    return {
      result,
      window: { fromUs, toUs: monotonicUs() },
      generatorMs: (used.user + used.system) / 1000,
    };
  } finally {
    // Stopping removes the run's folder, and with it the messages the run queued.
    await receiver.stop();
  }
}

/** npm start's answer to a queued call, which the floor server gives every call. */
const QUEUED_ANSWER = responseFromOutcome({ kind: 'queued', status: 200, details: {} });

/**
 * The floor of the valid calls: a bare `node:http` server in a child process that reads each body
 * and answers 200 with npm start's queued answer, nothing else. What this machine, its Node.js
 * HTTP stack and the load generator manage with no receiver at all. Its stdin is its lifeline:
 * it exits when the pipe closes, so a bench killed by any signal leaves no server behind.
 */
const FLOOR_SERVER = `
import { createServer } from 'node:http';
process.stdin.on('end', () => process.exit(0)).resume();
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, ${JSON.stringify(QUEUED_ANSWER.headers)});
    response.end(${JSON.stringify(QUEUED_ANSWER.body)});
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/** How long the floor server may take to print its port. */
const FLOOR_START_MS = 10_000;

/** The valid calls' load against {@link FLOOR_SERVER}: a warm-up, then the measured run. */
async function floorCalls(): Promise<AutocannonResult> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_SERVER], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // Rejects if the child cannot be spawned; a child that exits before it listens ends the wait.
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  try {
    const [port] = (await Promise.race([
      once(lines, 'line', { signal: AbortSignal.timeout(FLOOR_START_MS) }),
      exited.then(([code, signal]) => {
        throw new Error(`the floor server exited before it listened (${code ?? signal})`);
      }),
    ])) as [string];
    const load = {
      url: `http://127.0.0.1:${port.trim()}`,
      connections: CONNECTIONS,
      requests: signedRequests('/webhook', 'floor-key'),
    };
    await autocannon({ ...load, duration: DEFAULT_WARM_UP_SECONDS });
    return await autocannon({ ...load, duration: SECONDS });
  } finally {
    lines.close();
    child.kill();
    await exited.catch(() => undefined);
  }
}

/** Where the CPU of a valid call goes in npm start, and what its load generator spends. */
interface ProfiledRun {
  readonly calls: number;
  readonly breakdown: CpuBreakdown;
  /** CPU milliseconds of this process (autocannon) over the measured run. */
  readonly generatorMs: number;
}

/**
 * The parts of npm start that CPU time is charged to, most specific first: the packages of each
 * embedded server are found from its dependency tree, so a new version's packages count too.
 */
async function npmStartParts(): Promise<CpuPart[]> {
  const sdk = await dependencyClosure(ROOT, [
    '@aws-sdk/client-sqs',
    '@aws-sdk/client-firehose',
    '@aws-sdk/client-s3',
  ]);
  const sqs = await dependencyClosure(ROOT, ['local-aws-sqs']);
  const s3 = await dependencyClosure(ROOT, ['s3rver']);
  const only = (names: Set<string>, ...others: Set<string>[]): string[] =>
    [...names].filter((name) => !others.some((other) => other.has(name)));
  return [
    { name: 'receiver handler and signature check (lambda/)', url: projectUrl(ROOT, 'lambda/') },
    { name: 'Powertools logger and metrics', url: /\/@aws-lambda-powertools\// },
    {
      name: 'AWS SDK clients: SendMessage, PutRecord (and their packages)',
      url: packagesUrl(sdk),
    },
    {
      name: 'embedded SQS: local-aws-sqs, its packages, local-queues.ts, queue-journal.ts',
      url: new RegExp(
        `${packagesUrl(only(sqs, sdk)).source}|${projectUrl(ROOT, String.raw`local/(?:local-queues|queue-journal)\.ts`).source}`,
      ),
    },
    {
      name: 'archive: Firehose stand-in, s3rver and its packages, local-archive.ts',
      url: new RegExp(
        `${packagesUrl(only(s3, sdk, sqs)).source}|${projectUrl(ROOT, String.raw`local/local-archive\.ts`).source}`,
      ),
    },
    { name: 'inspector (local/inspector/)', url: projectUrl(ROOT, 'local/inspector/') },
    { name: 'local HTTP server and API Gateway event (local/)', url: projectUrl(ROOT, 'local/') },
    {
      name: 'hashing (node:crypto: signature HMAC, SigV4, MD5 checks)',
      url: /^node:internal\/crypto\//,
    },
    { name: 'garbage collector', functionName: /^\(garbage collector\)$/ },
    {
      name: 'Node.js core: HTTP, sockets, streams, events, timers, microtasks (node:*, native)',
      url: /^(node:|$)/,
    },
  ];
}

/**
 * The valid calls again, against an npm start under `node --cpu-prof` (sampling once a
 * millisecond): its main thread's CPU during the measured run, by part. Profiled apart from the
 * run whose figures the table gives, which the profiler would slow down.
 */
async function profiledValidCalls(): Promise<ProfiledRun> {
  await mkdir(join(ROOT, '.local'), { recursive: true });
  const dir = await mkdtemp(join(ROOT, '.local', 'profile-'));
  try {
    const parts = await npmStartParts();
    const run = await validCalls(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    // The child writes its profile as it exits, which the run waited for.
    const profile = await readMainThreadProfile(dir);
    return {
      calls: run.result.requests.total,
      breakdown: cpuBreakdown(profile, run.window, parts),
      generatorMs: run.generatorMs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The profile as a table: CPU milliseconds per call and share of the busy time, per part. */
function profileTable(profiled: ProfiledRun): BenchTable {
  const { calls, breakdown, generatorMs } = profiled;
  const perCall = (ms: number): string => (ms / calls).toFixed(3);
  const share = (ms: number): string => `${((100 * ms) / breakdown.busyMs).toFixed(1)}%`;
  const windowMs = breakdown.busyMs + breakdown.idleMs;
  return {
    title: "Where npm start's CPU goes: a profile of its main thread under the valid calls",
    columns: ['part', 'CPU ms per call', 'share of busy time'],
    rows: [
      ...breakdown.parts.map((part) => [part.name, perCall(part.ms), share(part.ms)]),
      ['npm start, busy (all of the above)', perCall(breakdown.busyMs), '100%'],
      [
        'npm start, idle (waiting for the network, the disk or the load)',
        perCall(breakdown.idleMs),
        '',
      ],
      ['load generator (autocannon, the bench process)', perCall(generatorMs), ''],
    ],
    notes: [
      `${calls} valid calls in ${SECONDS} s against npm start under node --cpu-prof, after ${DEFAULT_WARM_UP_SECONDS} s of warm-up; only samples taken during the measured ${SECONDS} s count. The main thread was busy ${((100 * breakdown.busyMs) / windowMs).toFixed(0)}% of them.`,
      'Self time: each sample goes to the function that was running, not to its callers; the SDK and the local servers run in promise continuations whose callers are not on the stack, so this is the split that can be read. Hashing and Node.js core are shared by every part (the HMAC, SigV4 signing and the MD5 checks all run in node:crypto; both ends of each loopback call run in the same HTTP code).',
      'The load generator is this process: its CPU time over the measured run, which the two cores share with npm start.',
    ],
  };
}

/** The load test's hostile mix against a fresh local process, judged as `npm run loadtest` judges it. */
async function hostileMix(): Promise<HostileMixRun> {
  const receiver = await startLocalProcess({ projectDir: ROOT, env: process.env });
  try {
    return await runHostileMix(
      { ...HOSTILE_MIX, config: receiverSettings(process.env) },
      receiver,
      process.env,
    );
  } finally {
    await receiver.stop();
  }
}

/**
 * A row of the throughput table for an autocannon run: its requests, rate and latency, and the
 * answers that were not 2xx; autocannon sees answers, not the queue, so those columns stay empty.
 */
function autocannonRow(load: string, result: AutocannonResult, ratioToFloor: string): string[] {
  return [
    load,
    String(result.requests.total),
    result.requests.average.toFixed(0),
    String(result.latency.p50),
    String(result.latency.p99),
    '',
    '',
    String(result.non2xx + result.errors + result.timeouts),
    ratioToFloor,
  ];
}

/** Requests per second through the real local process, loopback only. */
export const throughputSection: BenchSection = {
  name: 'throughput',
  async run(): Promise<BenchTable[]> {
    const [loadBefore = Number.NaN] = loadavg();
    const { result: valid } = await validCalls();
    const floor = await floorCalls();
    const mix = await hostileMix();
    const profiled = await profiledValidCalls();
    const { warmUp, run, queue, verdict } = mix;
    const mixRate = run.results.length / (run.elapsedMs / 1000);
    const latencies = run.results.map((result) => result.endedAt - result.startedAt);
    // The verdict judges the warm-up's calls too, and pairs their messages.
    const queuedAnswers = [...verdict.counts.values()].reduce(
      (sum, perKind) => sum + (perKind.get('queued') ?? 0),
      0,
    );
    return [
      {
        title: 'Local throughput: npm start with the inspector on, valid calls and the hostile mix',
        columns: [
          'load',
          'requests',
          'req/s (mean)',
          'latency p50 ms',
          'latency p99 ms',
          '200 without its message',
          'messages without a 200',
          'answers outside the contract',
          'ratio to floor',
        ],
        rows: [
          autocannonRow(
            `valid calls, autocannon, ${CONNECTIONS} connections, ${SECONDS} s`,
            valid,
            (valid.requests.average / floor.requests.average).toFixed(2),
          ),
          [
            `hostile mix, npm run loadtest, ${HOSTILE_MIX.concurrency} connections`,
            String(run.results.length),
            mixRate.toFixed(0),
            percentile(latencies, 0.5).toFixed(1),
            percentile(latencies, 0.99).toFixed(1),
            String(queuedAnswers - verdict.matched),
            String((queue?.messages.length ?? 0) - verdict.matched),
            String(verdict.problems.length),
            // The floor carries the valid calls' load, not this mix's connections and calls.
            '',
          ],
          autocannonRow(
            "floor: a bare node:http server answering 200, the valid calls' load",
            floor,
            '1.00',
          ),
        ],
        notes: [
          `Valid calls: signed event_booked calls (${BODIES} distinct bodies, pre-signed), each answered 200 queued after a SendMessage to the embedded queue; ${DEFAULT_WARM_UP_SECONDS} s warm-up not counted.`,
          `Hostile mix: ${HOSTILE_MIX.requests} calls of the load test's mix (genuine, replayed, forged, stale, oversized and ignored calls, seed ${HOSTILE_MIX.seed}) against a fresh npm start, timed after ${HOSTILE_MIX.warmUpSeconds} s of the same mix (${warmUp.results.length} calls, judged with them), then its queue drained and its archive read, and judged: every 200 queued answer has exactly one message with the identical body, every refused call its contract status, and each call answered 200 its archive record (${verdict.archived ?? 0} paired; ${verdict.problems.length === 0 ? 'PASS' : `FAIL: ${verdict.problems.join('; ')}`}).`,
          `Floor: the valid calls' requests, connections and durations against a bare node:http server in a child process that reads each body and answers 200 with npm start's queued answer and does nothing else: what this machine, its Node.js HTTP stack and autocannon manage without a receiver. Ratio to floor = the valid calls' req/s over the floor's, measured in the same run, so a slower or busier machine lowers both and the ratio stays (the hostile mix has its own connections and calls, so no ratio).`,
          'No target: a dev loop that takes a few hundred calls a second with nothing lost is enough. Each call sends its own SendMessage and PutRecord, as in Lambda; the figures are measured to follow the local run, and what counts is that nothing is lost.',
          `Each npm start (one Node process: HTTP server, handlers, embedded SQS with its journal flushed before every 200, the inspector, Powertools logs to a pipe) and its load generator share this machine's ${cpus().length} cores; the 1-minute load average before the runs was ${loadBefore.toFixed(2)}.`,
          `The deployed API is throttled at ${STAGE_THROTTLE_DEFAULTS.rateLimit} req/s steady and ${STAGE_THROTTLE_DEFAULTS.burstLimit} burst by default (context keys throttleRateLimit and throttleBurstLimit), below this; what it takes per front door is the capacity section.`,
        ],
      },
      profileTable(profiled),
    ];
  },
};
