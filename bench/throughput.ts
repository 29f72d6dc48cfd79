import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { startLocalProcess } from '../devkit/local-process.js';
import { signPayload } from '../lambda/core/index.js';
import { STAGE_THROTTLE_DEFAULTS } from '../lib/capacity-settings.js';
import { type HostileMixRun, receiverSettings, runHostileMix } from '../loadtest/run.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 3;
const SECONDS = 10;
const BODIES = 100;

/** Issue 25's floor for each load, in requests a second on this machine. */
const TARGETS = { valid: 1200, hostileMix: 1000 } as const;

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
        'service-signature': signPayload(body, key, timestamp),
      },
      body,
    };
  });
}

/** The hostile mix as the issue measured it: `npm run loadtest -- --requests 3000 --concurrency 16`. */
const HOSTILE_MIX = { requests: 3000, concurrency: 16, seed: 1, timeLimitSeconds: 120 } as const;

/** Valid calls under autocannon: the request path at its fastest. */
async function validCalls(): Promise<AutocannonResult> {
  // The loadtest's start: a clean first run in a scratch folder under .local/, removed at stop.
  const receiver = await startLocalProcess({ projectDir: ROOT, env: process.env });
  try {
    const url = new URL(receiver.webhookUrl);
    const load = {
      url: url.origin,
      connections: CONNECTIONS,
      requests: signedRequests(url.pathname, receiver.key),
    };
    // Lets the JIT compile the request path and the SDK open its keep-alive connections.
    await autocannon({ ...load, duration: WARM_UP_SECONDS });
    return await autocannon({ ...load, duration: SECONDS });
  } finally {
    // Stopping removes the run's folder, and with it the messages the run queued.
    await receiver.stop();
  }
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

/** Requests per second through the real local process, loopback only. */
export const throughputSection: BenchSection = {
  name: 'throughput',
  async run(): Promise<BenchTable> {
    const [loadBefore = Number.NaN] = loadavg();
    const valid = await validCalls();
    const mix = await hostileMix();
    const { run, queue, verdict } = mix;
    const seconds = run.elapsedMs / 1000;
    const latencies = run.results.map((result) => result.endedAt - result.startedAt);
    const queuedAnswers = run.results.filter((result) => result.outcome === 'queued').length;
    return {
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
        'target req/s',
      ],
      rows: [
        [
          `valid calls, autocannon, ${CONNECTIONS} connections, ${SECONDS} s`,
          String(valid.requests.total),
          valid.requests.average.toFixed(0),
          String(valid.latency.p50),
          String(valid.latency.p99),
          '',
          '',
          String(valid.non2xx + valid.errors + valid.timeouts),
          String(TARGETS.valid),
        ],
        [
          `hostile mix, npm run loadtest, ${HOSTILE_MIX.concurrency} connections`,
          String(run.results.length),
          (run.results.length / seconds).toFixed(0),
          percentile(latencies, 0.5).toFixed(1),
          percentile(latencies, 0.99).toFixed(1),
          String(queuedAnswers - verdict.matched),
          String(queue.messages.length - verdict.matched),
          String(verdict.problems.length),
          String(TARGETS.hostileMix),
        ],
      ],
      notes: [
        `Valid calls: signed event_booked calls (${BODIES} distinct bodies, pre-signed), each answered 200 queued after a SendMessage to the embedded queue; ${WARM_UP_SECONDS} s warm-up not counted.`,
        `Hostile mix: ${HOSTILE_MIX.requests} calls of the load test's mix (genuine, replayed, forged, stale, oversized and ignored calls, seed ${HOSTILE_MIX.seed}) against a fresh npm start, then its queue drained and judged: every 200 queued answer has exactly one message with the identical body and every refused call its contract status (${verdict.problems.length === 0 ? 'PASS' : `FAIL: ${verdict.problems.join('; ')}`}).`,
        `Each npm start (one Node process: HTTP server, handlers, embedded SQS with its journal flushed before every 200, the inspector, Powertools logs to a pipe) and its load generator share this machine's ${cpus().length} cores; the 1-minute load average before the runs was ${loadBefore.toFixed(2)}.`,
        `The deployed API is throttled at ${STAGE_THROTTLE_DEFAULTS.rateLimit} req/s steady and ${STAGE_THROTTLE_DEFAULTS.burstLimit} burst by default (context keys throttleRateLimit and throttleBurstLimit), below this; what it takes per front door is the capacity section.`,
      ],
    };
  },
};
