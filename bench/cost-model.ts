/**
 * AWS list prices in us-east-1 as found on 2026-11-21 (team copy: /tmp/team/prices.md).
 * Sources: https://aws.amazon.com/api-gateway/pricing/, https://aws.amazon.com/lambda/pricing/,
 * https://aws.amazon.com/sqs/pricing/, https://aws.amazon.com/secrets-manager/pricing/.
 */
export const PRICES = {
  date: '2026-11-21',
  region: 'us-east-1',
  /** REST API, first 333 million calls a month. */
  apiGatewayRestPerMillionCalls: 3.5,
  lambdaPerMillionRequests: 0.2,
  /** arm64, first 7.5 billion GB-seconds a month; billed per 1 ms. */
  lambdaArm64PerGbSecond: 0.0000133334,
  /** Per million requests; each 64 KB chunk of a payload is one request. */
  sqsStandardPerMillionRequests: 0.4,
  sqsFifoPerMillionRequests: 0.5,
  secretsManagerPer10kCalls: 0.05,
  secretsManagerPerSecretMonth: 0.4,
} as const;

/** Memory at which Lambda gives a function one full vCPU (AWS Lambda documentation). */
export const ONE_VCPU_MEMORY_MB = 1769;

/** Inputs of {@link estimateBilledDurationMs}. */
export interface DurationInputs {
  /** Measured in-process handler latency to scale, in ms (the p99, to be conservative). */
  readonly measuredMs: number;
  /** The function's memory, in MB. */
  readonly memoryMb: number;
  /** Assumed round trip of one SendMessage inside the region, in ms (not measured here). */
  readonly sqsRoundTripMs: number;
}

/**
 * A conservative billed duration for one warm invocation: the measured latency stretched by the
 * CPU share Lambda gives this memory size (below 1769 MB a function gets a fraction of a vCPU,
 * so CPU work takes proportionally longer), plus an in-region SQS round trip, rounded up to
 * Lambda's 1 ms billing granularity.
 *
 * @param inputs - measured latency, memory, assumed SQS round trip
 * @returns whole milliseconds, at least 1
 */
export function estimateBilledDurationMs(inputs: DurationInputs): number {
  const cpuSlowdown = Math.max(1, ONE_VCPU_MEMORY_MB / inputs.memoryMb);
  return Math.max(1, Math.ceil(inputs.measuredMs * cpuSlowdown + inputs.sqsRoundTripMs));
}

/** What the monthly bill is computed from. */
export interface CostAssumptions {
  readonly webhooksPerMonth: number;
  /** Billed duration of one receiver invocation, whole ms (see {@link estimateBilledDurationMs}). */
  readonly billedDurationMs: number;
  readonly memoryMb: number;
  readonly queue: 'standard' | 'fifo';
  /** SQS requests per webhook: the receiver's SendMessage plus the consumer's receive and delete. */
  readonly sqsRequestsPerWebhook: number;
  /** Execution environments that stay warm all month, each refreshing the keys on its own. */
  readonly warmEnvironments: number;
  /** `SECRET_CACHE_SECONDS`: one refresh per environment per this many seconds, at most. */
  readonly secretCacheSeconds: number;
  /** Secrets Manager calls per refresh (DescribeSecret + GetSecretValue in steady state). */
  readonly secretCallsPerRefresh: number;
  readonly daysPerMonth: number;
}

/** One line of the bill. */
export interface CostLine {
  readonly component: string;
  /** How much of the priced unit is used, e.g. 1,000,000 requests or 26,000 GB-seconds. */
  readonly quantity: number;
  readonly unit: string;
  /** Price of one `unit`, in USD. */
  readonly unitPriceUsd: number;
  /** The price as the price list quotes it, e.g. `$3.50 per million calls`. */
  readonly listPrice: string;
  readonly usd: number;
}

/** A monthly bill: its lines and their sum. */
export interface CostEstimate {
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
}

/**
 * The monthly cost of receiving `webhooksPerMonth` webhooks at list prices, per component. Free
 * tiers are not subtracted; components the receiver does not drive (the consumer function, logs,
 * data transfer) are left out and named by the caller.
 *
 * @param assumptions - traffic, billed duration, memory, queue type, key refresh pattern
 * @param prices - list prices, {@link PRICES} by default
 */
export function estimateMonthlyCost(
  assumptions: CostAssumptions,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  const webhooks = assumptions.webhooksPerMonth;
  const gbSeconds =
    webhooks * (assumptions.billedDurationMs / 1000) * (assumptions.memoryMb / 1024);
  const sqsRequests = webhooks * assumptions.sqsRequestsPerWebhook;
  const sqsPerMillion =
    assumptions.queue === 'fifo'
      ? prices.sqsFifoPerMillionRequests
      : prices.sqsStandardPerMillionRequests;
  const refreshesPerEnvironment =
    (assumptions.daysPerMonth * 86_400) / assumptions.secretCacheSeconds;
  const secretCalls =
    assumptions.warmEnvironments * refreshesPerEnvironment * assumptions.secretCallsPerRefresh;
  const line = (
    component: string,
    quantity: number,
    unit: string,
    unitPriceUsd: number,
    listPrice: string,
  ): CostLine => ({
    component,
    quantity,
    unit,
    unitPriceUsd,
    listPrice,
    usd: quantity * unitPriceUsd,
  });
  const perMillion = (price: number, units: string): string =>
    `$${price.toFixed(2)} per million ${units}`;
  const lines: CostLine[] = [
    line(
      'API Gateway REST API calls',
      webhooks,
      'call',
      prices.apiGatewayRestPerMillionCalls / 1e6,
      perMillion(prices.apiGatewayRestPerMillionCalls, 'calls'),
    ),
    line(
      'Lambda requests',
      webhooks,
      'request',
      prices.lambdaPerMillionRequests / 1e6,
      perMillion(prices.lambdaPerMillionRequests, 'requests'),
    ),
    line(
      'Lambda duration (arm64)',
      gbSeconds,
      'GB-second',
      prices.lambdaArm64PerGbSecond,
      `$${prices.lambdaArm64PerGbSecond} per GB-second`,
    ),
    line(
      `SQS ${assumptions.queue} requests`,
      sqsRequests,
      'request',
      sqsPerMillion / 1e6,
      perMillion(sqsPerMillion, 'requests'),
    ),
    line(
      'Secrets Manager API calls',
      secretCalls,
      'call',
      prices.secretsManagerPer10kCalls / 1e4,
      `$${prices.secretsManagerPer10kCalls.toFixed(2)} per 10,000 calls`,
    ),
    line(
      'Secrets Manager secret',
      1,
      'secret-month',
      prices.secretsManagerPerSecretMonth,
      `$${prices.secretsManagerPerSecretMonth.toFixed(2)} per secret per month`,
    ),
  ];
  return { lines, totalUsd: lines.reduce((sum, { usd }) => sum + usd, 0) };
}
