import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { signPayload } from '../lambda/core/index.js';
import { loadConfig } from '../lambda/receiver/config.js';
import { createHandler, type ReceiverHandler } from '../lambda/receiver/handler.js';
import { toApiGatewayEvent } from '../local/api-gateway-event.js';
import { buildBookingPayload } from '../local/booking-payload.js';
import { createLocalContext } from '../local/lambda-context.js';
import { startLocalQueues } from '../local/local-queues.js';
import { sqsClientFor } from '../local/sqs-client.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';
import { BENCH_BODIES, bareHmac } from './verify.js';

/** Latency of one kind of request, in milliseconds of wall time. */
export interface Latency {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** Bytes of log lines and EMF metrics the request wrote to stdout (CloudWatch Logs volume). */
  readonly outputBytes: number;
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
    const bytes = { queued: 0, unauthorized: 0, sendMessage: 0 };
    for (let index = 0; index < WARM_UP + SAMPLES; index++) {
      for (const kind of ['queued', 'unauthorized', 'sendMessage'] as const) {
        const call = prepare[kind](index);
        const bytesBefore = output.bytes();
        const start = performance.now();
        await call();
        const elapsed = performance.now() - start;
        if (index < WARM_UP) continue;
        samples[kind].push(elapsed);
        bytes[kind] += output.bytes() - bytesBefore;
      }
    }
    const latency = (kind: keyof typeof samples): Latency => ({
      medianMs: percentile(samples[kind], 0.5),
      p99Ms: percentile(samples[kind], 0.99),
      outputBytes: bytes[kind] / SAMPLES,
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
function signedEvent(
  body: string,
  key: string,
  timestamp = Math.floor(Date.now() / 1000),
): APIGatewayProxyEvent {
  const signature = signPayload(body, key, timestamp);
  return toApiGatewayEvent(
    {
      method: 'POST',
      target: '/webhook',
      httpVersion: '1.1',
      rawHeaders: ['Content-Type', 'application/json', 'Service-Signature', signature],
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

/**
 * Counts and drops what is written to stdout and stderr: Powertools writes one log line (warnings
 * and errors to stderr) and one EMF blob per call, which Lambda ships to CloudWatch Logs.
 * Serializing them stays in the measurement.
 */
function swallowOutput(): { bytes(): number; restore(): void } {
  let count = 0;
  const swallow = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    count += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    const callback = rest.find((argument) => typeof argument === 'function');
    if (typeof callback === 'function') callback();
    return true;
  }) as typeof process.stdout.write;
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) stream.write = swallow;
  return {
    bytes: () => count,
    restore: () => {
      streams.forEach((stream, index) => {
        stream.write = writes[index] ?? stream.write;
      });
    },
  };
}

const ms = (value: number): string => value.toFixed(2);

/** In-process latency of the receiver handler per request. */
export const handlerSection: BenchSection = {
  name: 'handler',
  async run(): Promise<BenchTable> {
    const result = await measureHandler();
    const row = (name: string, latency: Latency): string[] => [
      name,
      ms(latency.medianMs),
      ms(latency.p99Ms),
      latency.outputBytes.toFixed(0),
    ];
    return {
      title: 'Receiver handler in process, one request at a time (embedded SQS on loopback)',
      columns: ['request', 'median ms', 'p99 ms', 'log + EMF bytes'],
      rows: [
        row('valid signed event_booked -> 200 queued', result.queued),
        row('signed with another key -> 401', result.unauthorized),
        row('bare SendMessage, same client and body (floor)', result.sendMessage),
      ],
      notes: [
        `${result.samples} requests of each kind after ${result.warmUp} warm-up ones, interleaved; wall time per call.`,
        'createHandler with the real SQS client and a static key (WEBHOOK_SECRET); Powertools logs and metrics on; stdout and stderr counted and dropped.',
        'The embedded queue (local-aws-sqs) runs in the same process: its work is inside the queued and SendMessage figures.',
        "Valid minus floor is the handler's own cost (API Gateway event parsing, verification, logging, metrics).",
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
    for (const { name, text, pretty } of BENCH_BODIES) {
      if (pretty) continue;
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
