import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { sqsClientFor } from '../devkit/sqs-client.js';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { signPayload } from '../lambda/core/index.js';
import { SIGNATURE_HEADER } from '../lambda/core/signature-header.js';
import { loadConfig } from '../lambda/receiver/config.js';
import { createHandler, type ReceiverHandler } from '../lambda/receiver/handler.js';
import { DEFAULT_SYSTEM_LOG_LEVEL } from '../lib/receiver-settings.js';
import { toApiGatewayEvent } from '../local/api-gateway-event.js';
import { createLocalContext } from '../local/lambda-context.js';
import { startLocalQueues } from '../local/local-queues.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';
import { BENCH_BODIES, bareHmac } from './verify.js';

/** Latency of one kind of request, in milliseconds of wall time, and what it wrote. */
export interface Latency {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** Bytes of log lines and EMF metrics the request wrote to stdout and stderr, line feeds included. */
  readonly outputBytes: number;
  /** Lines written per request: each is one CloudWatch Logs event. */
  readonly outputLines: number;
  /** Of those, EMF blobs per request (accepted calls share one a minute per environment). */
  readonly emfLines: number;
  /** Size of one EMF blob of this kind of request, in bytes, when any was written. */
  readonly emfBlobBytes: number;
}

/** What {@link measureHandler} found; the cost section reuses it. */
export interface HandlerMeasurement {
  /** A valid signed `event_booked` call, answered 200 `queued` after one SendMessage. */
  readonly queued: Latency;
  /** A call signed with another key, answered 401 without touching the queue. */
  readonly unauthorized: Latency;
  /** One bare SendMessage of the same body through the same client: the queue's share. */
  readonly sendMessage: Latency;
  readonly samples: number;
  readonly warmUp: number;
}

const SAMPLES = 2000;
const WARM_UP = 300;
const KEY = 'bench-handler-key-3f9a1c7e5b2d4086';
const WRONG_KEY = 'not-the-endpoint-key-0000000000000';

let measurement: Promise<HandlerMeasurement> | undefined;

/**
 * Measures the production handler in this process, once per `npm run bench` (the cost section
 * reuses the figures): `createHandler` with the real SQS client against the embedded queue of
 * `npm start` (local-aws-sqs on loopback) and a static key, Powertools logs and metrics on.
 * Requests run one at a time after a warm-up, the three kinds interleaved so that a noisy moment
 * on the machine slows all of them alike.
 */
export function measureHandler(): Promise<HandlerMeasurement> {
  measurement ??= runMeasurement();
  return measurement;
}

async function runMeasurement(): Promise<HandlerMeasurement> {
  const queues = await startLocalQueues({ port: 0 });
  const sqsClient = sqsClientFor(queues.queueUrl);
  const config = loadConfig({ WEBHOOK_SECRET: KEY, QUEUE_URL: queues.queueUrl });
  const output = swallowOutput();
  try {
    const handler = createHandler(config, { sqsClient });
    const bodies = Array.from({ length: 200 }, () => buildBookingPayload());
    const body = (index: number): string => bodies[index % bodies.length] ?? '';
    // Each request is prepared (signed, wrapped in an event as API Gateway would) before its
    // timer starts: only the call itself is measured.
    const prepare = {
      queued: (index: number) => invocation(handler, signedEvent(body(index), KEY), 200),
      unauthorized: (index: number) =>
        invocation(handler, signedEvent(body(index), WRONG_KEY), 401),
      sendMessage: (index: number) => {
        const command = new SendMessageCommand({
          QueueUrl: queues.queueUrl,
          MessageBody: body(index),
        });
        return () => sqsClient.send(command);
      },
    };
    const samples = {
      queued: [] as number[],
      unauthorized: [] as number[],
      sendMessage: [] as number[],
    };
    const written = {
      queued: noOutput(),
      unauthorized: noOutput(),
      sendMessage: noOutput(),
    };
    const emf = { queued: noOutput(), unauthorized: noOutput(), sendMessage: noOutput() };
    for (let index = 0; index < WARM_UP + SAMPLES; index++) {
      for (const kind of ['queued', 'unauthorized', 'sendMessage'] as const) {
        const call = prepare[kind](index);
        const before = output.counts();
        const start = performance.now();
        await call();
        const elapsed = performance.now() - start;
        // EMF blobs of accepted calls come once a minute: sized over every call, warm-up included.
        addDifference(emf[kind], before, output.counts());
        if (index < WARM_UP) continue;
        samples[kind].push(elapsed);
        addDifference(written[kind], before, output.counts());
      }
    }
    const latency = (kind: keyof typeof samples): Latency => ({
      medianMs: percentile(samples[kind], 0.5),
      p99Ms: percentile(samples[kind], 0.99),
      outputBytes: written[kind].bytes / SAMPLES,
      outputLines: written[kind].lines / SAMPLES,
      emfLines: written[kind].emfLines / SAMPLES,
      emfBlobBytes: emf[kind].emfLines === 0 ? 0 : emf[kind].emfBytes / emf[kind].emfLines,
    });
    return {
      queued: latency('queued'),
      unauthorized: latency('unauthorized'),
      sendMessage: latency('sendMessage'),
      samples: SAMPLES,
      warmUp: WARM_UP,
    };
  } finally {
    output.restore();
    sqsClient.destroy();
    await queues.close();
  }
}

/** A REST API event as API Gateway builds it, signed at `timestamp` (default now). */
export function signedEvent(
  body: string,
  key: string,
  timestamp = Math.floor(Date.now() / 1000),
): APIGatewayProxyEvent {
  const signature = signPayload(body, key, timestamp);
  return toApiGatewayEvent(
    {
      method: 'POST',
      target: webhookPath(),
      httpVersion: '1.1',
      rawHeaders: ['Content-Type', 'application/json', SIGNATURE_HEADER, signature],
      body: Buffer.from(body),
      sourceIp: '203.0.113.10',
    },
    { requestId: randomUUID(), requestTimeEpoch: Date.now(), stage: 'bench' },
  );
}

/**
 * One handler call, ready to run. A different status than expected means the figures would
 * describe the wrong path: the bench stops.
 */
function invocation(
  handler: ReceiverHandler,
  event: APIGatewayProxyEvent,
  status: number,
): () => Promise<void> {
  const context = createLocalContext(event.requestContext.requestId);
  return async () => {
    const response = await handler(event, context);
    if (response.statusCode !== status) {
      throw new Error(
        `bench: expected ${status}, the handler answered ${response.statusCode} ${response.body}`,
      );
    }
  };
}

/** What was written: bytes (line feeds included), lines, and the EMF blobs among them. */
interface OutputCounts {
  bytes: number;
  lines: number;
  emfLines: number;
  emfBytes: number;
}

function noOutput(): OutputCounts {
  return { bytes: 0, lines: 0, emfLines: 0, emfBytes: 0 };
}

function addDifference(total: OutputCounts, before: OutputCounts, after: OutputCounts): void {
  total.bytes += after.bytes - before.bytes;
  total.lines += after.lines - before.lines;
  total.emfLines += after.emfLines - before.emfLines;
  total.emfBytes += after.emfBytes - before.emfBytes;
}

/**
 * Counts and drops what is written to stdout and stderr: the receiver's log line per call and
 * its EMF blobs, which Lambda ships to CloudWatch Logs, one event per line. Serializing them
 * stays in the measurement.
 */
function swallowOutput(): { counts(): OutputCounts; restore(): void } {
  const counts = noOutput();
  const swallow = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const bytes = Buffer.byteLength(text);
    const lines = text.split('\n').length - 1;
    counts.bytes += bytes;
    counts.lines += lines;
    if (text.includes('"_aws"')) {
      counts.emfLines += lines;
      counts.emfBytes += bytes;
    }
    const callback = rest.find((argument) => typeof argument === 'function');
    if (typeof callback === 'function') callback();
    return true;
  }) as typeof process.stdout.write;
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) stream.write = swallow;
  return {
    counts: () => ({ ...counts }),
    restore: () => {
      streams.forEach((stream, index) => {
        stream.write = writes[index] ?? stream.write;
      });
    },
  };
}

const ms = (value: number): string => value.toFixed(2);
const us = (nanoseconds: number): string => (nanoseconds / 1000).toFixed(1);

/** The handler's CPU time per verified call, as a ratio to the bare HMAC floor. */
export const handlerSection: BenchSection = {
  name: 'handler',
  async run(): Promise<BenchTable> {
    const rows = (await measureHandlerCpu()).map((result) => [
      result.body,
      String(result.bytes),
      us(result.handlerNs),
      us(result.floorNs),
      result.ratio.toFixed(2),
      result.bytes > 32_768 ? '3' : '5',
    ]);
    return {
      title: 'Receiver handler CPU time per verified call, no I/O, vs bare HMAC-SHA-256',
      columns: ['body', 'bytes', 'handler CPU µs', 'bare HMAC CPU µs', 'ratio', 'target'],
      rows,
      notes: [
        'The production handler (createHandler, static key, logs and metrics on, output counted and dropped) answering a signed REST API event whose event type is not in FORWARD_EVENTS: verified, payload read, logged, answered 200 ignored, nothing sent, so no I/O. Floor: one bare createHmac(sha256).update(`<t>.<squashed body>`).digest() over the same text.',
        `CPU time (process.cpuUsage, user + system) of batches of about ${CPU_BATCH_NS / 1e6} ms, handler and floor interleaved, ${CPU_ROUNDS} rounds; ratio = median of the per-round ratios, so other processes on the machine count for neither.`,
        'Run through tsx: esbuild keeps function names there (a __name call per function created), which the deployed bundle does not, so the deployed handler is a little cheaper than measured.',
      ],
    };
  },
};

// Lambda's own lines per invocation at its default system log level (INFO, text format), as AWS
// documents them, with a 36-character request id, our memory size and two-digit durations.
const PLATFORM_LINES = [
  'START RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d Version: $LATEST',
  'END RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  'REPORT RequestId: 3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB\t',
];

/** CloudWatch Logs' metering overhead per log event, on top of its UTF-8 message. */
export const CLOUDWATCH_EVENT_OVERHEAD_BYTES = 26;

/**
 * CloudWatch Logs bytes per call as billed: each line the function writes is one event of its
 * UTF-8 bytes (line feed excluded) plus 26 bytes.
 *
 * @param latency - what one kind of request wrote
 */
export function cloudWatchBytesPerCall(latency: Latency): number {
  return latency.outputBytes + latency.outputLines * (CLOUDWATCH_EVENT_OVERHEAD_BYTES - 1);
}

/** Lambda's START, END and REPORT lines per invocation, billed like the function's own lines. */
export const PLATFORM_BYTES_PER_CALL = PLATFORM_LINES.reduce(
  (sum, line) => sum + Buffer.byteLength(line) + CLOUDWATCH_EVENT_OVERHEAD_BYTES,
  0,
);

/**
 * Bytes of Lambda's own lines per invocation as the construct deploys the functions: none at its
 * default system log level, WARN, which drops START, END and REPORT.
 */
export const DEPLOYED_PLATFORM_BYTES_PER_CALL =
  DEFAULT_SYSTEM_LOG_LEVEL === SystemLogLevel.WARN ? 0 : PLATFORM_BYTES_PER_CALL;

/** Wall latency per request over the embedded queue, and the CloudWatch Logs bytes it costs. */
export const logsSection: BenchSection = {
  name: 'logs',
  async run(): Promise<BenchTable> {
    const result = await measureHandler();
    const row = (name: string, latency: Latency, target: string): string[] => [
      name,
      ms(latency.medianMs),
      ms(latency.p99Ms),
      latency.outputLines.toFixed(3),
      cloudWatchBytesPerCall(latency).toFixed(0),
      (cloudWatchBytesPerCall(latency) + PLATFORM_BYTES_PER_CALL).toFixed(0),
      target,
    ];
    const queuedBlob = result.queued.emfBlobBytes;
    return {
      title:
        'Receiver handler per request over the embedded queue: latency and CloudWatch Logs bytes',
      columns: [
        'request',
        'median ms',
        'p99 ms',
        'lines',
        'CloudWatch bytes, function lines',
        'with Lambda START/END/REPORT',
        'target',
      ],
      rows: [
        row('valid signed event_booked -> 200 queued', result.queued, '350'),
        row('signed with another key -> 401', result.unauthorized, ''),
        [
          'bare SendMessage, same client and body (floor)',
          ms(result.sendMessage.medianMs),
          ms(result.sendMessage.p99Ms),
          '',
          '',
          '',
          '',
        ],
      ],
      notes: [
        `${result.samples} requests of each kind after ${result.warmUp} warm-up ones, interleaved; wall time per call. createHandler with the real SQS client against the embedded queue of npm start (local-aws-sqs, same process, so its work is inside the queued and SendMessage figures) and a static key; default log level (INFO).`,
        `CloudWatch bytes as CloudWatch Logs meters them: every line written is one event, billed as its UTF-8 bytes plus ${CLOUDWATCH_EVENT_OVERHEAD_BYTES} bytes. Function lines: the call's log line, and its EMF blob for a rejection; accepted calls add to counts published as one EMF blob (${queuedBlob.toFixed(0)} bytes here) at most once a minute per warm environment, shared by every call of that minute (${(queuedBlob + CLOUDWATCH_EVENT_OVERHEAD_BYTES).toFixed(0)} bytes more for a call alone in its minute).`,
        `Lambda's own START, END and REPORT lines (${PLATFORM_BYTES_PER_CALL} bytes a call with the overhead, sized from AWS's documented format) are billed too at Lambda's default system log level, INFO; the construct deploys both functions with the JSON log format and a system log level of WARN (systemLogLevel), which drops them.`,
        'Rejections are logged at WARN with an EMF blob each (counts, and WebhookRejected by reason), so alarms see them within the minute.',
      ],
    };
  },
};

/** CPU time of the handler per verified call against the floor, for one body. */
export interface HandlerCpu {
  readonly body: string;
  readonly bytes: number;
  readonly handlerNs: number;
  readonly floorNs: number;
  /** Median over rounds of handler CPU time per call / floor CPU time per call. */
  readonly ratio: number;
}

const CPU_ROUNDS = 41;
const CPU_BATCH_NS = 4_000_000;

/**
 * The handler's CPU time per verified call with no I/O: the production handler (static key,
 * Powertools logs and metrics on, output counted and dropped) answering a signed REST API event
 * whose event type is not in FORWARD_EVENTS (200 ignored), so nothing waits on a socket. Set
 * against the bare HMAC over the same signed text, in interleaved rounds of CPU time
 * (`process.cpuUsage`), so other processes on the machine do not count.
 */
export async function measureHandlerCpu(): Promise<HandlerCpu[]> {
  const config = loadConfig({
    WEBHOOK_SECRET: KEY,
    QUEUE_URL: 'http://127.0.0.1:9/000000000000/not-used',
    FORWARD_EVENTS: 'event_not_sent',
  });
  const output = swallowOutput();
  try {
    const handler = createHandler(config);
    const results: HandlerCpu[] = [];
    for (const { name, text, pretty, bytes } of BENCH_BODIES) {
      if (pretty || bytes) continue;
      const timestamp = Math.floor(Date.now() / 1000);
      const call = invocation(handler, signedEvent(text, KEY, timestamp), 200);
      const floor = bareHmac(text, timestamp);
      const handlerBatch = await calibrateAsync(call);
      const floorBatch = await calibrateAsync(async () => {
        floor();
      });
      const handlerSamples: number[] = [];
      const floorSamples: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < CPU_ROUNDS; round++) {
        const floorNs = (await cpuNanoseconds(async () => floor(), floorBatch)) / floorBatch;
        const handlerNs = (await cpuNanoseconds(call, handlerBatch)) / handlerBatch;
        floorSamples.push(floorNs);
        handlerSamples.push(handlerNs);
        ratios.push(handlerNs / floorNs);
      }
      results.push({
        body: name,
        bytes: Buffer.byteLength(text),
        handlerNs: percentile(handlerSamples, 0.5),
        floorNs: percentile(floorSamples, 0.5),
        ratio: percentile(ratios, 0.5),
      });
    }
    return results;
  } finally {
    output.restore();
  }
}

/** How many calls make a batch of about CPU_BATCH_NS of CPU time (after a warm-up). */
async function calibrateAsync(call: () => Promise<unknown>): Promise<number> {
  await cpuNanoseconds(call, 500);
  let size = 1;
  while ((await cpuNanoseconds(call, size)) < CPU_BATCH_NS / 4) size *= 2;
  return Math.max(1, Math.round((size * CPU_BATCH_NS) / (await cpuNanoseconds(call, size))));
}

/** CPU time (user + system) of `size` calls, one after another, in nanoseconds. */
async function cpuNanoseconds(call: () => Promise<unknown>, size: number): Promise<number> {
  const before = process.cpuUsage();
  for (let index = 0; index < size; index++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) * 1000;
}
