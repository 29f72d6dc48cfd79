/** A benchmarked operation; it returns something so the work cannot be optimized away. */
export type Operation = () => unknown;

/** How a comparison is sampled. */
export interface SamplingOptions {
  /**
   * Number of timed batches per operation.
   * @default 101
   */
  readonly batches?: number;
  /**
   * Roughly how long one batch should last; the batch size is calibrated to it.
   * @default 2_000_000 (2 ms)
   */
  readonly batchNanoseconds?: number;
}

/** The outcome of {@link compareOperations}. */
export interface Comparison {
  /** Median nanoseconds per call of each operation, in the order given. */
  readonly medianNanoseconds: readonly number[];
  /**
   * For each operation, the median over batches of its time per call divided by the first
   * operation's in the batch run just before it: a ratio that noise outside the process, which
   * slows both batches of a pair alike, leaves mostly unchanged.
   */
  readonly medianRatioToFirst: readonly number[];
}

/**
 * Times operations in interleaved batches (a, b, a, b, ...), so that frequency scaling or a noisy
 * neighbour on a shared 2-core machine slows every operation alike, and reports both the median
 * cost of each and its median batch-by-batch ratio to the first (the baseline).
 */
export function compareOperations(
  operations: readonly Operation[],
  options: SamplingOptions = {},
): Comparison {
  const batches = options.batches ?? 101;
  const batchNanoseconds = options.batchNanoseconds ?? 2_000_000;
  const sizes = operations.map((operation) => calibrate(operation, batchNanoseconds));
  const samples = operations.map((): number[] => []);
  for (let batch = 0; batch < batches; batch++) {
    operations.forEach((operation, index) => {
      const size = sizes[index] ?? 1;
      samples[index]?.push(timeBatch(operation, size) / size);
    });
  }
  const [baseline = []] = samples;
  return {
    medianNanoseconds: samples.map(median),
    medianRatioToFirst: samples.map((series) =>
      median(series.map((nanoseconds, batch) => nanoseconds / (baseline[batch] ?? Number.NaN))),
    ),
  };
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
