import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { sqsClientFor } from '../devkit/sqs-client.js';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { signPayload } from '../lambda/core/index.js';
import { SIGNATURE_HEADER } from '../lambda/core/signature-header.js';
import { loadConfig } from '../lambda/receiver/config.js';
import { createHandler, type ReceiverHandler } from '../lambda/receiver/handler.js';
import { toApiGatewayEvent } from '../local/api-gateway-event.js';
import { createLocalContext } from '../local/lambda-context.js';
import { startLocalQueues } from '../local/local-queues.js';
import { percentile } from './percentile.js';

/**
 * The receiver handler as the bench drives it: signed events, a handler invoked as Lambda would,
 * its output counted and dropped, and its latency over the embedded queue, which the logs, cost
 * and capacity sections read.
 * @module
 */

/** Latency of one kind of request, in milliseconds of wall time, and what it wrote. */
export interface Latency {
  readonly medianMs: number;
  readonly p99Ms: number;
  /** Bytes of log lines and EMF metrics the request wrote to stdout and stderr, line feeds included. */
  readonly outputBytes: number;
  /** Lines written per request: each is one CloudWatch Logs event. */
  readonly outputLines: number;
  /** Of those, EMF blobs per request (none: the calls are counted from their log lines). */
  readonly emfLines: number;
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
/** The static key the measured handlers verify with. */
export const KEY = 'bench-handler-key-3f9a1c7e5b2d4086';
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
    for (let index = 0; index < WARM_UP + SAMPLES; index++) {
      for (const kind of ['queued', 'unauthorized', 'sendMessage'] as const) {
        const call = prepare[kind](index);
        const before = output.counts();
        const start = performance.now();
        await call();
        const elapsed = performance.now() - start;
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
export function invocation(
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
}

function noOutput(): OutputCounts {
  return { bytes: 0, lines: 0, emfLines: 0 };
}

function addDifference(total: OutputCounts, before: OutputCounts, after: OutputCounts): void {
  total.bytes += after.bytes - before.bytes;
  total.lines += after.lines - before.lines;
  total.emfLines += after.emfLines - before.emfLines;
}

/**
 * Counts and drops what is written to stdout and stderr: the receiver's log line per call and
 * its EMF blobs, which Lambda ships to CloudWatch Logs, one event per line. Serializing them
 * stays in the measurement.
 */
export function swallowOutput(): { counts(): OutputCounts; restore(): void } {
  const counts = noOutput();
  const swallow = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const bytes = Buffer.byteLength(text);
    const lines = text.split('\n').length - 1;
    counts.bytes += bytes;
    counts.lines += lines;
    if (text.includes('"_aws"')) {
      counts.emfLines += lines;
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
