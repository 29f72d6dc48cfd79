import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { signPayload } from '../lambda/core/index.js';
import { buildBookingPayload } from '../local/booking-payload.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const KEY = 'bench-throughput-key-8e1d4c6a2f9b7053';
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 3;
const SECONDS = 10;
const BODIES = 100;

/** A running `npm start` and the webhook URL it printed. */
interface StartedReceiver {
  readonly child: ChildProcess;
  readonly url: string;
}

/**
 * Starts `local/start.ts` as `npm start` runs it (node with tsx), in an empty directory, on free
 * ports, with a key in WEBHOOK_SECRET and none of the caller's AWS or receiver settings.
 */
async function startReceiver(cwd: string): Promise<StartedReceiver> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(WEBHOOK_SECRET|SECRET_ID|QUEUE_URL|PORT|HOST|LOCAL_SQS_PORT|AWS_)/.test(name),
    ),
  );
  const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'local/start.ts')], {
    cwd,
    env: {
      ...inherited,
      PORT: '0',
      LOCAL_SQS_PORT: '0',
      WEBHOOK_SECRET: KEY,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    // Its log lines are read and dropped: an unread pipe would fill up and stall the server.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString();
      if (!stdout.includes('Press Ctrl-C to stop.')) return;
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      const found = /Webhook URL:\s+(\S+)/.exec(stdout)?.[1];
      if (found) resolve(found);
      else reject(new Error(`bench: no webhook URL in the banner:\n${stdout}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`bench: npm start exited with ${code} before it was ready:\n${stderr}`)),
    );
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/**
 * Distinct bookings signed now: each connection loops over them, and the run is far shorter than
 * the 300 s signature tolerance, so every call stays valid.
 */
function signedRequests(path: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  return Array.from({ length: BODIES }, () => {
    const body = buildBookingPayload();
    return {
      method: 'POST',
      path,
      headers: {
        'content-type': 'application/json',
        'service-signature': signPayload(body, KEY, timestamp),
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
    const cwd = await mkdtemp(join(tmpdir(), 'bench-throughput-'));
    const receiver = await startReceiver(cwd);
    let result: AutocannonResult;
    try {
      const url = new URL(receiver.url);
      const load = {
        url: url.origin,
        connections: CONNECTIONS,
        requests: signedRequests(url.pathname),
      };
      // Lets the JIT compile the request path and the SDK open its keep-alive connections.
      await autocannon({ ...load, duration: WARM_UP_SECONDS });
      result = await autocannon({ ...load, duration: SECONDS });
    } finally {
      // The queue lives in the process: stopping it discards the messages the run produced.
      await stop(receiver.child);
      await rm(cwd, { recursive: true, force: true });
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
        'The deployed API is throttled at 100 req/s steady and 200 burst by default (context keys throttleRateLimit and throttleBurstLimit), far below this.',
      ],
    };
  },
};
