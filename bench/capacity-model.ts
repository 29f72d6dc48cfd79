import {
  type CostInputs,
  estimateCost,
  estimateInitCost,
  estimateTurnedAwayCost,
  estimateUnqueuedCost,
  type PricedIngress,
  type UnqueuedCallInputs,
} from './cost-model.js';
import { QUOTAS } from './quotas.js';
import type { TokenBucketLimits } from './token-bucket.js';

/**
 * The capacity model of `npm run bench -- capacity`: pure functions that push a sender's calls,
 * one at a time, through the limits a deployed receiver meets (the stage's token bucket, the
 * account's API Gateway quota, Lambda's request rate, concurrency and scaling rate, the key loads
 * of new environments, the queue's send rate) and count what each turns away. Its inputs are
 * {@link QUOTAS} (AWS's documented defaults, each with its source) and the durations the section
 * measures. The simulation itself is in `capacity-simulation.ts`.
 *
 * @module
 */

/** What turned a call away, from the sender's side of the front door inwards. */
export const LIMITS = [
  'stageThrottle',
  'accountApiQuota',
  'lambdaRequestRate',
  'lambdaConcurrency',
  'lambdaScaling',
  'keyLoads',
  'queueSends',
] as const;

/** One of {@link LIMITS}. */
export type Limit = (typeof LIMITS)[number];

/** The limits one deployed receiver meets, and how long its calls keep an environment. */
export interface CapacityInputs {
  readonly ingress: PricedIngress;
  /** The stage's throttle (`throttleRateLimit`, `throttleBurstLimit`); none for a function URL. */
  readonly stageThrottle: TokenBucketLimits | undefined;
  /** The account's API Gateway throttle quota; none for a function URL. */
  readonly accountApiThrottle: TokenBucketLimits | undefined;
  /** Calls the receiver may run at once: its reserved concurrency, else the account's quota. */
  readonly concurrencyLimit: number;
  /** Lambda's request-rate limit, 10 a second per unit of `concurrencyLimit`. */
  readonly lambdaRequestRate: TokenBucketLimits;
  /** New execution environments Lambda creates for the function. */
  readonly lambdaScaling: TokenBucketLimits;
  /** Key loads a second (one per new environment): Secrets Manager and the KMS calls it makes. */
  readonly keyLoads: TokenBucketLimits;
  /** SendMessage calls a second the queue takes; none for a standard queue (no practical limit). */
  readonly queueSends: TokenBucketLimits | undefined;
  /** How long a warm queued call holds its environment, in seconds. */
  readonly warmCallSeconds: number;
  /** How long a new environment starts before its first call runs, in seconds. */
  readonly coldStartSeconds: number;
}

/** A steady limit: `perSecond` a second, and one second's worth at once. */
export function perSecond(rate: number): TokenBucketLimits {
  return { ratePerSecond: rate, burst: rate };
}

/** What decides a receiver's limits: the construct's options and the account's quotas. */
export interface DeployedReceiver {
  readonly ingress: PricedIngress;
  /** The stage throttle, for the APIs. */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
  readonly reservedConcurrency?: number;
  /** The account's Lambda concurrency quota. */
  readonly accountConcurrency: number;
  /** The queue: standard, FIFO, or FIFO in high throughput mode. */
  readonly queue: 'standard' | 'fifo' | 'fifo-high-throughput';
  readonly warmCallSeconds: number;
  readonly coldStartSeconds: number;
}

/** The limits a receiver deployed with these options meets, at the documented quotas. */
export function capacityInputs(receiver: DeployedReceiver): CapacityInputs {
  const concurrencyLimit = receiver.reservedConcurrency ?? receiver.accountConcurrency;
  const api = receiver.ingress !== 'function-url';
  const queueSends = {
    standard: undefined,
    fifo: perSecond(QUOTAS.sqsFifoSends.value),
    'fifo-high-throughput': perSecond(QUOTAS.sqsFifoHighThroughputSends.value),
  }[receiver.queue];
  return {
    ingress: receiver.ingress,
    stageThrottle:
      api && receiver.throttle
        ? { ratePerSecond: receiver.throttle.rateLimit, burst: receiver.throttle.burstLimit }
        : undefined,
    accountApiThrottle: api
      ? {
          ratePerSecond: QUOTAS.apiGatewayAccountRate.value,
          burst: QUOTAS.apiGatewayAccountBurst.value,
        }
      : undefined,
    concurrencyLimit,
    lambdaRequestRate: perSecond(QUOTAS.lambdaRequestsPerConcurrency.value * concurrencyLimit),
    lambdaScaling: {
      ratePerSecond: QUOTAS.lambdaScalingRate.value / 10,
      burst: QUOTAS.lambdaScalingRate.value,
    },
    keyLoads: perSecond(
      Math.min(QUOTAS.secretsManagerGetSecretValue.value, QUOTAS.kmsSymmetricRequests.value),
    ),
    queueSends,
    warmCallSeconds: receiver.warmCallSeconds,
    coldStartSeconds: receiver.coldStartSeconds,
  };
}

/**
 * What a sender does. New deliveries arrive evenly spaced; a sender holding a backlog re-sends it
 * evenly spaced at its own rate, and puts a call that was turned away back into that backlog.
 */
export interface Scenario {
  /** The name the output line carries. */
  readonly name: string;
  /** New deliveries a second. */
  readonly liveRatePerSecond: number;
  /** How long new deliveries arrive, in seconds; `undefined`: until the backlog is drained. */
  readonly liveSeconds: number | undefined;
  /** Deliveries held at the start (an outage's worth), re-sent at `resendRatePerSecond`. */
  readonly backlog: number;
  readonly resendRatePerSecond: number;
  /** Whether a call turned away joins the backlog (re-sent) or is only counted. */
  readonly resendTurnedAway: boolean;
}

/** A day of new deliveries at `ratePerSecond`, nothing held back. */
export function steadyScenario(name: string, ratePerSecond: number, seconds: number): Scenario {
  return {
    name,
    liveRatePerSecond: ratePerSecond,
    liveSeconds: seconds,
    backlog: 0,
    resendRatePerSecond: 0,
    resendTurnedAway: false,
  };
}

/**
 * The sender back after `outageSeconds` without delivering at `liveRatePerSecond`: it re-sends
 * that backlog at `resendRatePerSecond` (and whatever is turned away again), while new deliveries
 * keep arriving, until nothing is left.
 */
export function catchUpScenario(
  liveRatePerSecond: number,
  outageSeconds: number,
  resendRatePerSecond: number,
): Scenario {
  const hours = outageSeconds / 3600;
  return {
    name: `${hours}h-at-${liveRatePerSecond}/s-resent-at-${resendRatePerSecond}/s`,
    liveRatePerSecond,
    liveSeconds: undefined,
    backlog: liveRatePerSecond * outageSeconds,
    resendRatePerSecond,
    resendTurnedAway: true,
  };
}

/** What a scenario did to one receiver. */
export interface ScenarioResult {
  /** Calls the sender made, re-sent ones included. */
  readonly offered: number;
  readonly turnedAway: number;
  readonly turnedAwayBy: Readonly<Record<Limit, number>>;
  /** Receiver invocations: the queued calls and those the queue turned away (answered 503). */
  readonly invocations: number;
  readonly queued: number;
  /** New execution environments, each one key load. */
  readonly coldStarts: number;
  /** The most calls running at once. */
  readonly peakConcurrency: number;
  /** The most new environments (key loads) started within one second. */
  readonly peakKeyLoadsPerSecond: number;
  /** When the last call of the scenario was answered, in seconds from its start. */
  readonly drainedSeconds: number;
}

/** The line `npm run bench -- capacity` prints per front door and scenario, exactly as checks read it. */
export function capacityLine(
  ingress: PricedIngress,
  scenario: string,
  result: ScenarioResult,
  costUsd: number,
): string {
  return `capacity ${ingress} ${scenario}: turned away ${result.turnedAway} of ${result.offered}, drained in ${Math.round(result.drainedSeconds)} s, peak concurrency ${result.peakConcurrency}, cost $${costUsd.toFixed(2)}`;
}

/** The limit that turned most calls away, if any did. */
export function bindingLimit(result: ScenarioResult): Limit | undefined {
  const [limit, count] = LIMITS.map((name) => [name, result.turnedAwayBy[name]] as const).reduce(
    (most, next) => (next[1] > most[1] ? next : most),
  );
  return count > 0 ? limit : undefined;
}

/** The steady rate, in calls a second, at which each limit starts to turn calls away. */
export function limitRates(inputs: CapacityInputs): Readonly<Record<Limit, number>> {
  return {
    stageThrottle: inputs.stageThrottle?.ratePerSecond ?? Number.POSITIVE_INFINITY,
    accountApiQuota: inputs.accountApiThrottle?.ratePerSecond ?? Number.POSITIVE_INFINITY,
    lambdaRequestRate: inputs.lambdaRequestRate.ratePerSecond,
    lambdaConcurrency: inputs.concurrencyLimit / inputs.warmCallSeconds,
    // Only new environments need a key load or a scaling token: no steady limit.
    lambdaScaling: Number.POSITIVE_INFINITY,
    keyLoads: Number.POSITIVE_INFINITY,
    queueSends: inputs.queueSends?.ratePerSecond ?? Number.POSITIVE_INFINITY,
  };
}

/** The limit a rising steady rate meets first, and the rate at which it does. */
export function nearestLimit(inputs: CapacityInputs): { limit: Limit; ratePerSecond: number } {
  const rates = limitRates(inputs);
  const limit = LIMITS.reduce((lowest, next) => (rates[next] < rates[lowest] ? next : lowest));
  return { limit, ratePerSecond: rates[limit] };
}

/** What prices a scenario's calls besides the result: the per-call bill of a queued call. */
export interface ScenarioPricing {
  /** The cost model's inputs of one queued call through this front door (the default stack). */
  readonly queuedCall: CostInputs;
  /** Bytes of the access log line a call the front door answers itself writes (0: none). */
  readonly accessLogBytesPerCall: number;
  /** Billed INIT phase of a new environment, whole ms. */
  readonly initBilledMs: number;
}

/**
 * What a scenario costs: every invocation priced as a queued call (front door to consumer and its
 * idempotency writes, conservative for the few the queue turned away), the key reloads of every
 * environment over the scenario's length, the billed INIT phase of each cold start, and each call
 * the front door answered itself (429 from the stage, or 500 for a Lambda throttle behind an
 * API) at the front door's price with its access log line. Lambda bills no throttled invocation,
 * so a function URL's throttled calls cost nothing.
 */
export function scenarioCostUsd(result: ScenarioResult, pricing: ScenarioPricing): number {
  const { queuedCall } = pricing;
  const answeredByFrontDoor =
    result.turnedAway - result.turnedAwayBy.keyLoads - result.turnedAwayBy.queueSends;
  const turnedAwayByLambda =
    result.turnedAwayBy.lambdaRequestRate +
    result.turnedAwayBy.lambdaConcurrency +
    result.turnedAwayBy.lambdaScaling;
  const billedAtFrontDoor =
    queuedCall.ingress === 'function-url'
      ? answeredByFrontDoor - turnedAwayByLambda
      : answeredByFrontDoor;
  return (
    estimateCost(
      {
        ...queuedCall,
        warmEnvironments: result.coldStarts,
        daysPerMonth: result.drainedSeconds / 86_400,
      },
      result.invocations,
    ).totalUsd +
    estimateTurnedAwayCost(queuedCall.ingress, billedAtFrontDoor, pricing.accessLogBytesPerCall)
      .totalUsd +
    estimateInitCost(result.coldStarts, pricing.initBilledMs, queuedCall.receiverMemoryMb).totalUsd
  );
}

/**
 * The most forged calls a second that reach the receiver: what the stage and the account's API
 * Gateway quota let through, and what Lambda runs (its request rate, and its concurrency held by
 * calls of `forgedCallSeconds` each).
 */
export function forgedCallsPerSecond(inputs: CapacityInputs, forgedCallSeconds: number): number {
  return Math.min(
    inputs.stageThrottle?.ratePerSecond ?? Number.POSITIVE_INFINITY,
    inputs.accountApiThrottle?.ratePerSecond ?? Number.POSITIVE_INFINITY,
    inputs.lambdaRequestRate.ratePerSecond,
    inputs.concurrencyLimit / forgedCallSeconds,
  );
}

/**
 * What an hour of a flood of forged calls costs at most: every call the limits let through is
 * invoked and answered 401 (front door, Lambda request and duration, its logs), plus the stage's
 * burst once.
 */
export function forgedFloodCostPerHourUsd(
  inputs: CapacityInputs,
  forgedCall: UnqueuedCallInputs,
): number {
  const calls =
    forgedCallsPerSecond(inputs, forgedCall.receiverBilledMs / 1000) * 3600 +
    (inputs.stageThrottle?.burst ?? 0);
  return estimateUnqueuedCost(forgedCall, calls).totalUsd;
}
