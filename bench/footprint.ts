import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { RECEIVER_MEMORY_MB } from '../lib/receiver-settings.js';
import { startLocalQueues } from '../local/local-queues.js';
import { bundle, LOAD_ENV } from './cold-start.js';
import { signedEvent } from './handler.js';
import type { BenchSection, BenchTable } from './section.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const KEY = 'bench-footprint-key-8c2e4a6f1b3d5970';
const CALLS = 3000;
const WARM_UP = 300;

/** What the child process running the deployed bundle reports. */
interface Footprint {
  /** CPU time of importing the bundle (cold start, module load only). */
  readonly loadCpuMs: number;
  /** CPU time of the first call: building clients, compiling the JSON check, first send. */
  readonly firstCallCpuMs: number;
  /** CPU time per warm queued call, SDK and HTTP client included. */
  readonly warmCpuMs: number;
  /** Wall time per warm queued call over loopback. */
  readonly warmWallMs: number;
  /** Peak resident set size of the process, MB: what Lambda reports as Max Memory Used. */
  readonly maxRssMb: number;
}

// Runs in a fresh `node` with the deployed options: imports the bundle, then answers every event
// one at a time and reports CPU, wall time and peak memory.
const DRIVER = `
const [bundleUrl, eventsUrl, calls, warmUp] = process.argv.slice(1);
const { readFile } = await import('node:fs/promises');
const events = JSON.parse(await readFile(new URL(eventsUrl), 'utf8'));
const cpu = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };
let start = cpu();
const { handler } = await import(bundleUrl);
const loadCpuMs = cpu() - start;
const context = (id) => ({ awsRequestId: id, functionName: 'receiver', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:receiver', memoryLimitInMB: '512',
  logGroupName: '/aws/lambda/receiver', logStreamName: 'bench', callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 15000 });
let firstCallCpuMs = 0; let warmStart = 0; let wallStart = 0;
for (let index = 0; index < Number(calls); index++) {
  const event = events[index % events.length];
  if (index === 1) firstCallCpuMs = cpu() - start;
  if (index === Number(warmUp)) { warmStart = cpu(); wallStart = performance.now(); }
  if (index === 0) start = cpu();
  const response = await handler(event, context(event.requestContext.requestId));
  if (response.statusCode !== 200) throw new Error(response.body);
}
const warm = Number(calls) - Number(warmUp);
process.stderr.write(JSON.stringify({ loadCpuMs, firstCallCpuMs,
  warmCpuMs: (cpu() - warmStart) / warm, warmWallMs: (performance.now() - wallStart) / warm,
  maxRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

async function measureFootprint(): Promise<Footprint> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-footprint-'));
  const queues = await startLocalQueues({ port: 0 });
  try {
    const receiver = await bundle(
      'receiver',
      { entryPoints: [join(ROOT, 'lambda/receiver/index.ts')] },
      join(dir, 'receiver'),
    );
    // A few distinct events, cycled: holding thousands would inflate the peak memory measured.
    const events = Array.from({ length: 50 }, () => signedEvent(buildBookingPayload(), KEY));
    const eventsFile = join(dir, 'events.json');
    await writeFile(eventsFile, JSON.stringify(events));
    const { stderr } = await promisify(execFile)(
      process.execPath,
      [
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        DRIVER,
        pathToFileURL(receiver.file).href,
        pathToFileURL(eventsFile).href,
        String(CALLS),
        String(WARM_UP),
      ],
      {
        env: {
          ...LOAD_ENV,
          SECRET_ID: '',
          WEBHOOK_SECRET: KEY,
          QUEUE_URL: queues.queueUrl,
          AWS_ENDPOINT_URL_SQS: queues.endpoint,
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
        },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return JSON.parse(stderr.slice(stderr.lastIndexOf('{"loadCpuMs"'))) as Footprint;
  } finally {
    await queues.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Lambda gives a function one vCPU at this memory size, and CPU in proportion below it. */
const ONE_VCPU_MB = 1769;
const MEMORY_SIZES_MB = [...new Set([128, 256, 512, 1024, RECEIVER_MEMORY_MB])].sort(
  (a, b) => a - b,
);

/**
 * The deployed bundle in a fresh process answering queued calls over loopback: the CPU time and
 * peak memory that choose the receiver's memory size.
 */
export const footprintSection: BenchSection = {
  name: 'footprint',
  async run(): Promise<BenchTable> {
    const result = await measureFootprint();
    const cpuAt = (memoryMb: number, ms: number): string =>
      (ms * Math.max(1, ONE_VCPU_MB / memoryMb)).toFixed(2);
    return {
      title: 'Receiver bundle in a fresh process: CPU per call and peak memory (queued calls)',
      columns: [
        'memory MB',
        'fits (peak RSS MB)',
        'warm call CPU ms, scaled',
        'cold start CPU ms, scaled (load + first call)',
      ],
      rows: MEMORY_SIZES_MB.map((memoryMb) => [
        memoryMb === RECEIVER_MEMORY_MB ? `${memoryMb} (the default)` : String(memoryMb),
        `${memoryMb >= result.maxRssMb ? 'yes' : 'no'} (${result.maxRssMb.toFixed(0)})`,
        cpuAt(memoryMb, result.warmCpuMs),
        cpuAt(memoryMb, result.loadCpuMs + result.firstCallCpuMs),
      ]),
      notes: [
        `Measured: the receiver bundle (esbuild with the construct's options, --enable-source-maps) imported by a fresh node with WEBHOOK_SECRET and the embedded queue over loopback; ${CALLS} signed event_booked calls (50 distinct bodies of about 450 bytes, PHP-escaped, cycled), each answered 200 queued; warm figures over the last ${CALLS - WARM_UP}.`,
        `On this machine (one full core): module load ${result.loadCpuMs.toFixed(1)} ms CPU, first call ${result.firstCallCpuMs.toFixed(1)} ms CPU, warm call ${result.warmCpuMs.toFixed(3)} ms CPU and ${result.warmWallMs.toFixed(3)} ms wall (SDK, HTTP client and JSON over loopback included; the queue runs in the parent process), peak RSS ${result.maxRssMb.toFixed(1)} MB (Lambda's Max Memory Used).`,
        `The default, ${RECEIVER_MEMORY_MB} MB (receiverMemorySize), is the smallest multiple of 64 MB with half again the peak RSS: a warm call mostly waits for SendMessage, so less memory costs less (see the cost section), down to where a larger body or a busier heap would no longer fit.`,
        `Scaled = CPU ms x ${ONE_VCPU_MB}/memory: Lambda gives one vCPU at ${ONE_VCPU_MB} MB and a proportional share below. A warm call also waits for SendMessage in the region (network, not CPU, the same at every size), which dominates its duration at every size from 128 MB up.`,
      ],
    };
  },
};
