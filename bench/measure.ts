/** A benchmarked operation; it returns something so the work cannot be optimized away. */
export type Operation = () => unknown;

/** How a comparison is sampled. */
export interface SamplingOptions {
  /**
   * Number of timed batches per operation; the median batch is reported.
   * @default 41
   */
  readonly batches?: number;
  /**
   * Roughly how long one batch should last; the batch size is calibrated to it.
   * @default 5_000_000 (5 ms)
   */
  readonly batchNanoseconds?: number;
}

/**
 * Median nanoseconds per call of each operation. Batches of the operations are interleaved
 * (a, b, a, b, ...) so that frequency scaling or a noisy neighbour slows every operation alike,
 * which keeps their ratio meaningful on a shared 2-core machine.
 */
export function medianNanosecondsPerCall(
  operations: readonly Operation[],
  options: SamplingOptions = {},
): number[] {
  const batches = options.batches ?? 41;
  const batchNanoseconds = options.batchNanoseconds ?? 5_000_000;
  const sizes = operations.map((operation) => calibrate(operation, batchNanoseconds));
  const samples = operations.map((): number[] => []);
  for (let batch = 0; batch < batches; batch++) {
    operations.forEach((operation, index) => {
      const size = sizes[index] ?? 1;
      samples[index]?.push(timeBatch(operation, size) / size);
    });
  }
  return samples.map(median);
}

function calibrate(operation: Operation, batchNanoseconds: number): number {
  // Warm up so the JIT has compiled the operation before its speed is judged.
  timeBatch(operation, 1000);
  let size = 1;
  while (timeBatch(operation, size) < batchNanoseconds / 4) size *= 2;
  return Math.max(1, Math.round((size * batchNanoseconds) / timeBatch(operation, size)));
}

// Every result is stored here so the optimizer cannot drop the work that produced it.
const sink: { result?: unknown } = {};

function timeBatch(operation: Operation, size: number): number {
  const start = process.hrtime.bigint();
  for (let call = 0; call < size; call++) sink.result = operation();
  return Number(process.hrtime.bigint() - start);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
