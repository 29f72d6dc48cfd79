import {
  type CostInputs,
  estimateCost,
  estimateInitCost,
  estimateTurnedAwayCost,
  estimateUnqueuedCost,
  type PricedIngress,
  type UnqueuedCallInputs,
} from './cost-model.js';
import { fullBucket, type TokenBucket, type TokenBucketLimits, takeToken } from './token-bucket.js';

/**
 * The capacity model of `npm run bench -- capacity`: pure functions that push a sender's calls,
 * one at a time, through the limits a deployed receiver meets (the stage's token bucket, the
 * account's API Gateway quota, Lambda's request rate, concurrency and scaling rate, the key loads
 * of new environments, the queue's send rate) and count what each turns away. Its inputs are
 * {@link QUOTAS} (AWS's documented defaults, each with its source) and the durations the section
 * measures.
 *
 * @module
 */

/** One AWS quota the model applies, as AWS documents it. */
export interface Quota {
  /** The quota's name on its documentation page (and in Service Quotas where it is listed). */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Whether a quota increase raises it: `yes`, `no`, or `see source` where the page is unclear. */
  readonly raisable: 'yes' | 'no' | 'see source';
  /** Where the default is documented. */
  readonly source: string;
  /** Where the default does not hold. */
  readonly note?: string;
}

/** The quotas the model applies, at their documented defaults (read 2026-11-24). */
export const QUOTAS = {
  apiGatewayAccountRate: {
    name: 'Throttle quota per account, per Region across HTTP APIs, REST APIs, WebSocket APIs, and WebSocket callback APIs',
    value: 10_000,
    unit: 'requests per second',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    note: '2,500 in some newer Regions (Cape Town, Milan, Jakarta, ...); shared by every API of the account in the Region',
  },
  apiGatewayAccountBurst: {
    name: 'burst of the account throttle quota (token bucket capacity)',
    value: 5_000,
    unit: 'requests',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
    note: 'set by API Gateway from the rate quota; 1,250 where the rate is 2,500',
  },
  lambdaConcurrency: {
    name: 'Concurrent executions',
    value: 1_000,
    unit: 'executions in flight, per account and Region',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
    note: 'new accounts start with a reduced quota, which AWS raises with use; shared by every function of the account (the example consumer included)',
  },
  lambdaUnreservedMinimum: {
    name: 'unreserved concurrency Lambda keeps for functions without a reservation',
    value: 100,
    unit: 'executions',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html',
  },
  lambdaRequestsPerConcurrency: {
    name: 'requests per second per unit of concurrency (10 x the concurrency quota)',
    value: 10,
    unit: 'requests per second',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-concurrency.html',
    note: 'documented for the account; the model applies the same ratio to a reserved limit',
  },
  lambdaScalingRate: {
    name: 'concurrency scaling rate (1,000 execution environments every 10 seconds, per function)',
    value: 1_000,
    unit: 'new environments per 10 s, refilled continuously',
    raisable: 'no',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html',
  },
  sqsFifoSends: {
    name: 'FIFO queue throughput without high throughput mode',
    value: 300,
    unit: 'SendMessage calls per second per queue (3,000 messages in batches of 10)',
    raisable: 'no',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
    note: 'a standard queue takes a nearly unlimited number of calls per second',
  },
  sqsFifoHighThroughputSends: {
    name: 'FIFO queue throughput in high throughput mode',
    value: 70_000,
    unit: 'SendMessage calls per second per queue, 300 per message group',
    raisable: 'see source',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html',
    note: 'US East (N. Virginia), US West (Oregon), Europe (Ireland); lower in other Regions',
  },
  secretsManagerGetSecretValue: {
    name: 'GetSecretValue API request rate',
    value: 10_000,
    unit: 'requests per second',
    raisable: 'see source',
    source: 'https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_limits.html',
    note: 'DescribeSecret: 40,000 a second',
  },
  kmsSymmetricRequests: {
    name: 'Cryptographic operations (symmetric) request rate',
    value: 5_500,
    unit: 'requests per second, shared by the account in the Region',
    raisable: 'yes',
    source: 'https://docs.aws.amazon.com/kms/latest/developerguide/requests-per-second.html',
    note: 'the lowest regional default (higher in large Regions); Secrets Manager calls Decrypt for each GetSecretValue',
  },
} as const satisfies Record<string, Quota>;

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

/** A binary min-heap of the moments busy environments become free. */
function createFreeTimes() {
  const heap: number[] = [];
  const swap = (a: number, b: number): void => {
    [heap[a], heap[b]] = [heap[b] as number, heap[a] as number];
  };
  return {
    get size(): number {
      return heap.length;
    },
    peek: (): number => heap[0] ?? Number.POSITIVE_INFINITY,
    push(value: number): void {
      heap.push(value);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as number) <= value) break;
        swap(i, parent);
        i = parent;
      }
    },
    pop(): void {
      const last = heap.pop() as number;
      if (heap.length === 0) return;
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && (heap[left] as number) < (heap[smallest] as number)) {
          smallest = left;
        }
        if (right < heap.length && (heap[right] as number) < (heap[smallest] as number)) {
          smallest = right;
        }
        if (smallest === i) break;
        swap(i, smallest);
        i = smallest;
      }
    },
  };
}

/** A limit checked at each call: a token bucket, or none. */
interface Gate {
  readonly limit: Limit;
  readonly limits: TokenBucketLimits | undefined;
  bucket: TokenBucket | undefined;
}

function gate(limit: Limit, limits: TokenBucketLimits | undefined): Gate {
  return { limit, limits, bucket: limits && fullBucket(limits) };
}

/** Takes a token from the gate's bucket; a gate without limits lets every call through. */
function pass(gate: Gate, atSeconds: number): boolean {
  if (gate.limits === undefined || gate.bucket === undefined) return true;
  const { taken, bucket } = takeToken(gate.bucket, gate.limits, atSeconds);
  gate.bucket = bucket;
  return taken;
}

/**
 * Runs a scenario against one receiver, from no warm environment (the outage or deploy before
 * it left none), one call at a time in order of arrival. A call passes the stage, the account's
 * API Gateway quota and Lambda's request rate in turn; then it takes a free environment, or a new
 * one (within the concurrency limit, the scaling rate and the key loads a second), which first
 * spends `coldStartSeconds`; then it sends to the queue. The first limit that refuses it turns it
 * away. Environments are kept once created (Lambda reclaims idle ones after some minutes, which
 * would only add cold starts the day scenario does not count).
 */
export function simulate(scenario: Scenario, inputs: CapacityInputs): ScenarioResult {
  const frontGates = [
    gate('stageThrottle', inputs.stageThrottle),
    gate('accountApiQuota', inputs.accountApiThrottle),
    gate('lambdaRequestRate', inputs.lambdaRequestRate),
  ];
  const scaling = gate('lambdaScaling', inputs.lambdaScaling);
  const keyLoads = gate('keyLoads', inputs.keyLoads);
  const queueSends = gate('queueSends', inputs.queueSends);
  const turnedAwayBy = Object.fromEntries(LIMITS.map((limit) => [limit, 0])) as Record<
    Limit,
    number
  >;
  const busyUntil = createFreeTimes();
  const keyLoadsBySecond = new Map<number, number>();
  let idle = 0;
  let offered = 0;
  let invocations = 0;
  let coldStarts = 0;
  let peakConcurrency = 0;
  let drainedSeconds = 0;

  /** One call at `at`: the limit that turned it away, or undefined once it is queued. */
  const offer = (at: number): Limit | undefined => {
    offered++;
    const refused = frontGates.find((front) => !pass(front, at));
    if (refused) return refused.limit;
    while (busyUntil.peek() <= at) {
      busyUntil.pop();
      idle++;
    }
    let end: number;
    if (idle > 0) {
      idle--;
      end = at + inputs.warmCallSeconds;
    } else {
      if (busyUntil.size >= inputs.concurrencyLimit) return 'lambdaConcurrency';
      if (!pass(scaling, at)) return 'lambdaScaling';
      if (!pass(keyLoads, at)) return 'keyLoads';
      coldStarts++;
      const second = Math.floor(at);
      keyLoadsBySecond.set(second, (keyLoadsBySecond.get(second) ?? 0) + 1);
      end = at + inputs.coldStartSeconds + inputs.warmCallSeconds;
    }
    busyUntil.push(end);
    peakConcurrency = Math.max(peakConcurrency, busyUntil.size);
    invocations++;
    drainedSeconds = Math.max(drainedSeconds, end);
    return pass(queueSends, at) ? undefined : 'queueSends';
  };

  const liveEnd = scenario.liveSeconds ?? Number.POSITIVE_INFINITY;
  const untilDrained = scenario.liveSeconds === undefined;
  let backlog = scenario.backlog;
  let liveIndex = 0;
  let resendIndex = 0;
  let now = 0;
  for (;;) {
    const liveAt =
      scenario.liveRatePerSecond > 0
        ? liveIndex / scenario.liveRatePerSecond
        : Number.POSITIVE_INFINITY;
    if (scenario.resendRatePerSecond > 0) {
      // The re-sender's next slot, not before now: it does not make up slots it had nothing for.
      resendIndex = Math.max(resendIndex, Math.ceil(now * scenario.resendRatePerSecond - 1e-9));
    }
    const resendAt =
      backlog > 0 && scenario.resendRatePerSecond > 0
        ? resendIndex / scenario.resendRatePerSecond
        : Number.POSITIVE_INFINITY;
    const liveDue = liveAt < liveEnd && !(untilDrained && backlog === 0);
    if (!liveDue && resendAt === Number.POSITIVE_INFINITY) break;
    const resend = !liveDue || resendAt < liveAt;
    now = resend ? resendAt : liveAt;
    if (resend) {
      resendIndex++;
      backlog--;
    } else {
      liveIndex++;
    }
    const refusedBy = offer(now);
    if (refusedBy !== undefined) {
      turnedAwayBy[refusedBy]++;
      if (scenario.resendTurnedAway) backlog++;
    }
  }
  const turnedAway = LIMITS.reduce((sum, limit) => sum + turnedAwayBy[limit], 0);
  return {
    offered,
    turnedAway,
    turnedAwayBy,
    invocations,
    queued: invocations - turnedAwayBy.queueSends,
    coldStarts,
    peakConcurrency,
    peakKeyLoadsPerSecond: Math.max(0, ...keyLoadsBySecond.values()),
    drainedSeconds,
  };
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
