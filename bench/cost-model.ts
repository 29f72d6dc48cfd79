import { bill, type CostEstimate, type CostLine, costLine, perMillion } from './cost-line.js';
import { PRICES } from './prices.js';

export { PRICES } from './prices.js';

/** Memory at which Lambda gives a function one full vCPU (AWS Lambda documentation). */
export const ONE_VCPU_MEMORY_MB = 1769;

/** The front doors priced, as the construct's `ingress` prop names them. */
export type PricedIngress = 'http-api' | 'rest-api' | 'function-url';

/**
 * DynamoDB write requests of the example consumer's idempotency utility, as counted against an
 * embedded DynamoDB in `test/lambda/consumer/handler.e2e.test.ts` (which asserts these figures). Each
 * record is under 1 KB, so each request is one write request unit; no read follows on DynamoDB.
 */
export const IDEMPOTENCY_WRITE_REQUESTS = {
  /** A booking processed: conditional PutItem (in progress), then UpdateItem (completed). */
  processed: 2,
  /** A copy suppressed: the conditional PutItem that fails, billed all the same. */
  suppressedCopy: 1,
} as const;

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

/** What the bill of one million calls is computed from. */
export interface CostInputs {
  readonly ingress: PricedIngress;
  /** Billed duration of one receiver invocation, whole ms (see {@link estimateBilledDurationMs}). */
  readonly receiverBilledMs: number;
  readonly receiverMemoryMb: number;
  readonly queue: 'standard' | 'fifo';
  /** Messages per consumer invocation: one ReceiveMessage and one DeleteMessageBatch each. */
  readonly consumerBatchSize: number;
  readonly consumerBilledMsPerBatch: number;
  readonly consumerMemoryMb: number;
  /** Execution environments warm all month, each reloading the keys on its own. */
  readonly warmEnvironments: number;
  /** `SECRET_CACHE_SECONDS`: one reload per environment per this many seconds, at most. */
  readonly secretCacheSeconds: number;
  /** Secrets Manager calls per reload (DescribeSecret + GetSecretValue in steady state). */
  readonly secretCallsPerRefresh: number;
  readonly daysPerMonth: number;
  /** Receiver's own log lines and EMF metrics per call. */
  readonly receiverLogBytesPerCall: number;
  /** Lambda's START, END and REPORT lines per invocation. */
  readonly platformLogBytesPerInvocation: number;
  /** The API's access log line per call (0 for a function URL, which writes none). */
  readonly accessLogBytesPerCall: number;
  /**
   * DynamoDB write requests per record for the consumer's idempotency records: 0 without the
   * table, {@link IDEMPOTENCY_WRITE_REQUESTS}.processed with it.
   */
  readonly idempotencyWritesPerRecord: number;
}

const FRONT_DOOR: Record<
  PricedIngress,
  {
    component: string;
    price:
      | 'apiGatewayHttpPerMillionCalls'
      | 'apiGatewayRestPerMillionCalls'
      | 'functionUrlPerMillionCalls';
  }
> = {
  'http-api': { component: 'API Gateway HTTP API calls', price: 'apiGatewayHttpPerMillionCalls' },
  'rest-api': { component: 'API Gateway REST API calls', price: 'apiGatewayRestPerMillionCalls' },
  'function-url': { component: 'Lambda function URL calls', price: 'functionUrlPerMillionCalls' },
};

/** `calls` calls through a front door, as one line of the bill. */
function frontDoorLine(ingress: PricedIngress, calls: number, prices: typeof PRICES): CostLine {
  const { component, price } = FRONT_DOOR[ingress];
  return costLine(
    component,
    calls,
    'call',
    prices[price] / 1e6,
    perMillion(prices[price], 'calls'),
  );
}

/** `gb` of CloudWatch Logs ingested, as one line of the bill. */
function logsLine(gb: number, prices: typeof PRICES): CostLine {
  return costLine(
    'CloudWatch Logs ingested',
    gb,
    'GB',
    prices.cloudWatchLogsPerGbIngested,
    `$${prices.cloudWatchLogsPerGbIngested.toFixed(2)} per GB`,
  );
}

/** A function's requests and its arm64 duration, as two lines of the bill. */
function lambdaLines(
  name: string,
  invocations: number,
  billedMs: number,
  memoryMb: number,
  prices: typeof PRICES,
): CostLine[] {
  return [
    costLine(
      `${name} Lambda requests`,
      invocations,
      'request',
      prices.lambdaPerMillionRequests / 1e6,
      perMillion(prices.lambdaPerMillionRequests, 'requests'),
    ),
    costLine(
      `${name} Lambda duration (arm64)`,
      invocations * (billedMs / 1000) * (memoryMb / 1024),
      'GB-second',
      prices.lambdaArm64PerGbSecond,
      `$${prices.lambdaArm64PerGbSecond} per GB-second`,
    ),
  ];
}

/** The DynamoDB writes of the consumer's idempotency records, on-demand. */
export function idempotencyLine(
  records: number,
  writesPerRecord: number,
  prices: typeof PRICES = PRICES,
): CostLine {
  return costLine(
    `DynamoDB idempotency writes (${writesPerRecord} per record, on-demand)`,
    records * writesPerRecord,
    'write request unit',
    prices.dynamoDbOnDemandPerMillionWrites / 1e6,
    `$${prices.dynamoDbOnDemandPerMillionWrites} per million write request units`,
  );
}

/**
 * What one million queued webhooks cost through one front door, all in (see {@link estimateCost}).
 */
export function estimateCostPerMillion(
  inputs: CostInputs,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  return estimateCost(inputs, 1_000_000, prices);
}

/**
 * What `calls` queued webhooks cost through one front door, all in: the front door, the
 * receiver's requests and duration, the SQS send and the consumer's receives and deletes (one
 * each per batch), the consumer's requests and duration, the DynamoDB writes of its idempotency
 * records, the Secrets Manager calls left after caching (over `daysPerMonth`, whatever the
 * number of calls), and the CloudWatch Logs ingested. Free tiers are not subtracted.
 */
export function estimateCost(
  inputs: CostInputs,
  calls: number,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  const batches = calls / inputs.consumerBatchSize;
  const sqsPerMillion =
    inputs.queue === 'fifo'
      ? prices.sqsFifoPerMillionRequests
      : prices.sqsStandardPerMillionRequests;
  const refreshesPerEnvironment = (inputs.daysPerMonth * 86_400) / inputs.secretCacheSeconds;
  const secretCalls =
    inputs.warmEnvironments * refreshesPerEnvironment * inputs.secretCallsPerRefresh;
  const logBytes =
    calls *
      (inputs.receiverLogBytesPerCall +
        inputs.platformLogBytesPerInvocation +
        inputs.accessLogBytesPerCall) +
    batches * inputs.platformLogBytesPerInvocation;
  return bill([
    frontDoorLine(inputs.ingress, calls, prices),
    ...lambdaLines('Receiver', calls, inputs.receiverBilledMs, inputs.receiverMemoryMb, prices),
    costLine(
      `SQS ${inputs.queue} requests (send, receive and delete per batch of ${inputs.consumerBatchSize})`,
      calls + 2 * batches,
      'request',
      sqsPerMillion / 1e6,
      perMillion(sqsPerMillion, 'requests'),
    ),
    ...lambdaLines(
      'Consumer',
      batches,
      inputs.consumerBilledMsPerBatch,
      inputs.consumerMemoryMb,
      prices,
    ),
    idempotencyLine(calls, inputs.idempotencyWritesPerRecord, prices),
    costLine(
      'Secrets Manager API calls (after caching)',
      secretCalls,
      'call',
      prices.secretsManagerPer10kCalls / 1e4,
      `$${prices.secretsManagerPer10kCalls.toFixed(2)} per 10,000 calls`,
    ),
    logsLine(logBytes / 1e9, prices),
  ]);
}

/** What a call answered without queueing anything costs: a forged one, say (401). */
export interface UnqueuedCallInputs {
  readonly ingress: PricedIngress;
  /** Billed duration of one such invocation, whole ms (see {@link estimateBilledDurationMs}). */
  readonly receiverBilledMs: number;
  readonly receiverMemoryMb: number;
  /**
   * CloudWatch Logs bytes per call as metered: the receiver's lines and EMF, Lambda's own lines
   * and the access log line.
   */
  readonly logBytesPerCall: number;
}

/**
 * What `calls` invocations cost that queue nothing (forged calls answered 401): the front door,
 * the receiver's requests and duration, and the logs they write. No SQS, consumer or DynamoDB.
 */
export function estimateUnqueuedCost(
  inputs: UnqueuedCallInputs,
  calls: number,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  return bill([
    frontDoorLine(inputs.ingress, calls, prices),
    ...lambdaLines('Receiver', calls, inputs.receiverBilledMs, inputs.receiverMemoryMb, prices),
    logsLine((calls * inputs.logBytesPerCall) / 1e9, prices),
  ]);
}

/**
 * What calls the front door answered itself cost (a stage's 429, say): their price as front door
 * calls, as the price list gives no exception for them, and their access log lines.
 */
export function estimateTurnedAwayCost(
  ingress: PricedIngress,
  calls: number,
  accessLogBytesPerCall: number,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  return bill([
    frontDoorLine(ingress, calls, prices),
    logsLine((calls * accessLogBytesPerCall) / 1e9, prices),
  ]);
}

/** The billed INIT phase of `coldStarts` new execution environments, arm64. */
export function estimateInitCost(
  coldStarts: number,
  initBilledMs: number,
  memoryMb: number,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  const [, duration] = lambdaLines('Receiver INIT', coldStarts, initBilledMs, memoryMb, prices);
  return bill(duration ? [duration] : []);
}

/** The line `npm run bench -- cost` prints for the idempotency table's share of each front door's. */
export function idempotencyPerMillionLine(usd: number): string {
  return `dynamodb idempotency per million records: $${usd.toFixed(2)}`;
}

/**
 * The line `npm run bench -- cost` prints per front door for the default stack (the example
 * consumer with its idempotency table), exactly as checks read it.
 */
export function costPerMillionWithIdempotencyLine(ingress: PricedIngress, usd: number): string {
  return `cost per million ${ingress} with idempotency: $${usd.toFixed(2)}`;
}

/** The line `npm run bench -- cost` prints per front door, exactly as checks read it. */
export function costPerMillionLine(ingress: PricedIngress, usd: number): string {
  return `cost per million ${ingress}: $${usd.toFixed(2)}`;
}
