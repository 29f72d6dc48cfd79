import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { startLocalProcess } from '../devkit/local-process.js';
import { signPayload } from '../lambda/core/index.js';
import { STAGE_THROTTLE_DEFAULTS } from '../lib/capacity-settings.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 3;
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
        'service-signature': signPayload(body, key, timestamp),
      },
      body,
    };
  });
}

/** Requests per second through the real local process, loopback only. */
export const throughputSection: BenchSection = {
  name: 'throughput',
  async run(): Promise<BenchTable> {
    const [loadBefore = Number.NaN] = loadavg();
    // The loadtest's start: a clean first run in a scratch folder under .local/, removed at stop.
    const receiver = await startLocalProcess({ projectDir: ROOT, env: process.env });
    let result: AutocannonResult;
    try {
      const url = new URL(receiver.webhookUrl);
      const load = {
        url: url.origin,
        connections: CONNECTIONS,
        requests: signedRequests(url.pathname, receiver.key),
      };
      // Lets the JIT compile the request path and the SDK open its keep-alive connections.
      await autocannon({ ...load, duration: WARM_UP_SECONDS });
      result = await autocannon({ ...load, duration: SECONDS });
    } finally {
      // Stopping removes the run's folder, and with it the messages the run queued.
      await receiver.stop();
    }
    return {
      title: `Local throughput: npm start under autocannon (${CONNECTIONS} connections, ${SECONDS} s)`,
      columns: [
        'requests',
        'req/s (mean)',
        'latency p50 ms',
        'latency p99 ms',
        'non-2xx',
        'errors + timeouts',
      ],
      rows: [
        [
          String(result.requests.total),
          result.requests.average.toFixed(0),
          String(result.latency.p50),
          String(result.latency.p99),
          String(result.non2xx),
          String(result.errors + result.timeouts),
        ],
      ],
      notes: [
        `Valid signed event_booked calls (${BODIES} distinct bodies, pre-signed), each answered 200 queued after a SendMessage to the embedded queue; ${WARM_UP_SECONDS} s warm-up not counted.`,
        `The receiver (one Node process: HTTP server, handler, embedded SQS, Powertools logs to a pipe) and autocannon share this machine's ${cpus().length} cores; the 1-minute load average before the run was ${loadBefore.toFixed(2)}.`,
        `The deployed API is throttled at ${STAGE_THROTTLE_DEFAULTS.rateLimit} req/s steady and ${STAGE_THROTTLE_DEFAULTS.burstLimit} burst by default (context keys throttleRateLimit and throttleBurstLimit), below this; what it takes per front door is the capacity section.`,
      ],
    };
  },
};
