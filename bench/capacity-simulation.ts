import {
  type CapacityInputs,
  LIMITS,
  type Limit,
  type Scenario,
  type ScenarioResult,
} from './capacity-model.js';
import { fullBucket, type TokenBucket, type TokenBucketLimits, takeToken } from './token-bucket.js';

/**
 * The capacity model's simulation: a sender's calls pushed one at a time through the limits of
 * {@link CapacityInputs}, counting what each limit turns away.
 * @module
 */

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
