import { loadConfig } from '../lambda/receiver/config.js';
import { createHandler } from '../lambda/receiver/handler.js';
import { invocation, KEY, signedEvent, swallowOutput } from './handler.js';
import { percentile } from './percentile.js';
import type { BenchSection, BenchTable } from './section.js';
import { BENCH_BODIES, bareHmac } from './verify.js';

/**
 * The `handler` section: the receiver handler's CPU time per verified call, with no I/O, set
 * against a bare HMAC over the same signed text.
 * @module
 */

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
