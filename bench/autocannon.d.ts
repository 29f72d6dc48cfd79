/**
 * The part of autocannon's programmatic API that `bench/throughput.ts` uses (the package ships no
 * types); see its README, "API".
 */
declare module 'autocannon' {
  /** One request of the sequence each connection loops over. */
  interface AutocannonRequest {
    readonly method?: string;
    readonly path?: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string | Buffer;
  }

  interface AutocannonOptions {
    readonly url: string;
    readonly connections?: number;
    /** Seconds. */
    readonly duration?: number;
    readonly pipelining?: number;
    readonly requests?: readonly AutocannonRequest[];
  }

  /** Percentiles of a histogram; latency in milliseconds, requests per one-second sample. */
  interface AutocannonHistogram {
    readonly average: number;
    readonly p50: number;
    readonly p99: number;
    readonly max: number;
    readonly total: number;
  }

  interface AutocannonResult {
    /** Seconds. */
    readonly duration: number;
    readonly latency: AutocannonHistogram;
    readonly requests: AutocannonHistogram;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly '2xx': number;
  }

  /** Runs a load test; without a callback the returned instance is awaitable. */
  export default function autocannon(options: AutocannonOptions): PromiseLike<AutocannonResult>;
}
