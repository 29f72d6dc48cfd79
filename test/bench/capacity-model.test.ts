import { describe, expect, it } from 'vitest';
import {
  bindingLimit,
  type CapacityInputs,
  capacityInputs,
  capacityLine,
  catchUpScenario,
  type DeployedReceiver,
  forgedCallsPerSecond,
  nearestLimit,
  type ScenarioPricing,
  type ScenarioResult,
  scenarioCostUsd,
  steadyScenario,
} from '../../bench/capacity-model.js';
import { simulate } from '../../bench/capacity-simulation.js';
import type { CostInputs } from '../../bench/cost-model.js';
import { PRICES } from '../../bench/prices.js';
import { QUOTAS } from '../../bench/quotas.js';
import { STAGE_THROTTLE_DEFAULTS } from '../../lambda/contract/capacity-settings.js';

/** A receiver whose only tight limit is the one a test sets. */
function receiver(overrides: Partial<DeployedReceiver> = {}): CapacityInputs {
  return capacityInputs({
    ingress: 'http-api',
    accountConcurrency: QUOTAS.lambdaConcurrency.value,
    queue: 'standard',
    warmCallSeconds: 0.03,
    coldStartSeconds: 0.5,
    ...overrides,
  });
}

/** A function URL reserved to one environment that starts at once, each call holding it `seconds`. */
function oneEnvironmentUrl(seconds: number): CapacityInputs {
  return receiver({
    ingress: 'function-url',
    reservedConcurrency: 1,
    warmCallSeconds: seconds,
    coldStartSeconds: 0,
  });
}

/** A queued call's bill inputs, every figure round, for cost arithmetic by hand. */
const QUEUED_CALL: CostInputs = {
  ingress: 'http-api',
  receiverBilledMs: 10,
  receiverMemoryMb: 512,
  queue: 'standard',
  consumerBatchSize: 10,
  consumerBilledMsPerBatch: 100,
  consumerMemoryMb: 256,
  warmEnvironments: 1,
  secretCacheSeconds: 300,
  secretCallsPerRefresh: 2,
  daysPerMonth: 30,
  receiverLogBytesPerCall: 300,
  platformLogBytesPerInvocation: 300,
  accessLogBytesPerCall: 300,
  idempotencyWritesPerRecord: 2,
};

const NOTHING_TURNED_AWAY: ScenarioResult['turnedAwayBy'] = {
  stageThrottle: 0,
  accountApiQuota: 0,
  lambdaRequestRate: 0,
  lambdaConcurrency: 0,
  lambdaScaling: 0,
  keyLoads: 0,
  queueSends: 0,
};

describe('Function: simulate', () => {
  it('turns away 71 of 100 calls in one second at a stage throttled to 10/s with a burst of 20', () => {
    // Prepare: 100 calls evenly spread over one second (at k/100 s). The stage's bucket starts
    // full: 20 tokens, plus 0.1 per 0.01 s. Calls 0 to 21 pass while the burst lasts (call k finds
    // 20 + 0.1k - k >= 1 tokens up to k = 21), then one passes whenever the refill makes a whole
    // token: at k = 30, 40, ..., 90. 22 + 7 = 29 pass, so 71 are turned away, all by the stage.
    const inputs = receiver({ throttle: { rateLimit: 10, burstLimit: 20 } });

    // Act
    const result = simulate(steadyScenario('one-second', 100, 1), inputs);

    // Assess
    expect(result).toMatchObject({ offered: 100, turnedAway: 71, queued: 29 });
    expect(result.turnedAwayBy).toEqual({ ...NOTHING_TURNED_AWAY, stageThrottle: 71 });
    expect(bindingLimit(result)).toBe('stageThrottle');
  });

  it("takes the default stack's 200/s catch-up of an hour at 10/s without turning any call away", () => {
    // Prepare: the construct's own defaults, and durations three times those the bench derives
    // on an idle machine (about 32 ms a call, 0.45 s a cold start)
    const inputs = receiver({
      throttle: STAGE_THROTTLE_DEFAULTS,
      warmCallSeconds: 0.1,
      coldStartSeconds: 1.5,
    });

    // Act
    const result = simulate(catchUpScenario(10, 3600, 200), inputs);

    // Assess: 36,000 held back, plus 10/s of new ones for the 180 s the re-send takes
    expect(result.turnedAway).toBe(0);
    expect(result.offered).toBe(36_000 + 1_800);
    expect(result.drainedSeconds).toBeCloseTo(180, 0);
  });

  it('re-sends what it turned away until the backlog is drained, at the rate the stage lets through', () => {
    // Prepare: 1,000 held back, re-sent at 100/s, through a stage of 50/s without burst to speak of
    const inputs = receiver({ throttle: { rateLimit: 50, burstLimit: 1 } });

    // Act
    const result = simulate({ ...catchUpScenario(10, 100, 100), liveRatePerSecond: 0 }, inputs);

    // Assess: every delivery queued once, the rest of the attempts turned away; about 20 s
    expect(result.queued).toBe(1_000);
    expect(result.offered - result.turnedAway).toBe(1_000);
    expect(result.turnedAway).toBeGreaterThan(900);
    expect(result.drainedSeconds).toBeGreaterThan(19.9);
    expect(result.drainedSeconds).toBeLessThan(20.1);
  });

  it('turns away calls that find every environment of a reserved concurrency busy', () => {
    // Prepare: one environment, each call holding it 0.5 s, 10 calls in a second
    const inputs = oneEnvironmentUrl(0.5);

    // Act
    const result = simulate(steadyScenario('one-second', 10, 1), inputs);

    // Assess: the calls at 0 s and 0.5 s run, the eight between them find it busy
    expect(result.turnedAwayBy).toEqual({ ...NOTHING_TURNED_AWAY, lambdaConcurrency: 8 });
    expect(result).toMatchObject({ queued: 2, peakConcurrency: 1, coldStarts: 1 });
  });

  it('holds a new environment for its cold start, so a burst needs more of them at once', () => {
    // Act: 10 calls a second for 2 s, 0.05 s each once warm, 1 s to start an environment
    const warmOnly = simulate(
      steadyScenario('two-seconds', 10, 2),
      receiver({ coldStartSeconds: 0 }),
    );
    const withColdStarts = simulate(
      steadyScenario('two-seconds', 10, 2),
      receiver({ warmCallSeconds: 0.05, coldStartSeconds: 1 }),
    );

    // Assess: one environment serves every call when none is cold; with 1 s starts, the calls of
    // the first 1.05 s each start their own (0.0 to 1.0 s: 11 calls)
    expect(warmOnly).toMatchObject({ peakConcurrency: 1, coldStarts: 1 });
    expect(withColdStarts).toMatchObject({ peakConcurrency: 11, coldStarts: 11, turnedAway: 0 });
  });

  it("turns calls away at Lambda's request rate of 10 a second per unit of concurrency", () => {
    // Prepare: a reservation of 1 allows 10 requests a second; 20 calls in one second. Before
    // call k (at k/20 s) the bucket holds 10 + 0.5k minus those passed, so calls 0 to 18 pass.
    const inputs = oneEnvironmentUrl(0.001);

    // Act
    const result = simulate(steadyScenario('one-second', 20, 1), inputs);

    // Assess
    expect(result.turnedAwayBy).toEqual({ ...NOTHING_TURNED_AWAY, lambdaRequestRate: 1 });
  });

  it('turns sends away at a FIFO queue above 300 a second, after invoking the receiver', () => {
    // Act
    const result = simulate(
      steadyScenario('one-second', 1_000, 1),
      receiver({ queue: 'fifo', throttle: { rateLimit: 5_000, burstLimit: 5_000 } }),
    );

    // Assess: the queue's bucket holds 300 and gains 300 over the second
    expect(result.turnedAwayBy.queueSends).toBeGreaterThan(350);
    expect(result.invocations).toBe(1_000);
    expect(result.queued).toBe(1_000 - result.turnedAwayBy.queueSends);
  });
});

describe('Function: nearestLimit', () => {
  it('names the stage throttle for an API and Lambda for a function URL', () => {
    expect(nearestLimit(receiver({ throttle: STAGE_THROTTLE_DEFAULTS }))).toEqual({
      limit: 'stageThrottle',
      ratePerSecond: STAGE_THROTTLE_DEFAULTS.rateLimit,
    });
    // 1,000 executions of 0.03 s would take 33,333/s; 10 requests a second per unit, 10,000/s
    expect(nearestLimit(receiver({ ingress: 'function-url' }))).toEqual({
      limit: 'lambdaRequestRate',
      ratePerSecond: 10_000,
    });
  });
});

describe('Function: forgedCallsPerSecond', () => {
  it('lets through at most the stage rate of an API', () => {
    expect(forgedCallsPerSecond(receiver({ throttle: STAGE_THROTTLE_DEFAULTS }), 0.01)).toBe(
      STAGE_THROTTLE_DEFAULTS.rateLimit,
    );
  });

  it("bounds a function URL by Lambda: its request rate, or its concurrency held by each call's time", () => {
    const urlWith = (reservedConcurrency: number) =>
      receiver({ ingress: 'function-url', reservedConcurrency });
    expect(forgedCallsPerSecond(urlWith(100), 0.01)).toBe(1_000);
    expect(forgedCallsPerSecond(urlWith(100), 0.5)).toBe(200);
    expect(forgedCallsPerSecond(receiver({ ingress: 'function-url' }), 0.01)).toBe(10_000);
  });
});

describe('Function: scenarioCostUsd', () => {
  const quiet: ScenarioResult = {
    offered: 0,
    turnedAway: 0,
    turnedAwayBy: NOTHING_TURNED_AWAY,
    invocations: 0,
    queued: 0,
    coldStarts: 0,
    peakConcurrency: 0,
    peakKeyLoadsPerSecond: 0,
    drainedSeconds: 0,
  };
  const pricing = (ingress: CostInputs['ingress']): ScenarioPricing => ({
    queuedCall: { ...QUEUED_CALL, ingress },
    accessLogBytesPerCall: 300,
    initBilledMs: 400,
  });

  it('prices a call the stage turned away as a front door call with its access log line', () => {
    // Prepare
    const throttled = {
      ...quiet,
      offered: 1_000_000,
      turnedAway: 1_000_000,
      turnedAwayBy: { ...NOTHING_TURNED_AWAY, stageThrottle: 1_000_000 },
    };

    // Act
    const usd = scenarioCostUsd(throttled, pricing('http-api'));

    // Assess: a million HTTP API calls, and 0.3 GB of access log
    expect(usd).toBeCloseTo(
      PRICES.apiGatewayHttpPerMillionCalls + 0.3 * PRICES.cloudWatchLogsPerGbIngested,
      6,
    );
  });

  it('prices nothing for calls Lambda throttled behind a function URL', () => {
    // Prepare
    const throttled = {
      ...quiet,
      offered: 1_000_000,
      turnedAway: 1_000_000,
      turnedAwayBy: { ...NOTHING_TURNED_AWAY, lambdaConcurrency: 1_000_000 },
    };

    // Act and Assess
    expect(
      scenarioCostUsd(throttled, { ...pricing('function-url'), accessLogBytesPerCall: 0 }),
    ).toBe(0);
  });

  it("bills each cold start's INIT phase", () => {
    // Prepare: 1,000 cold starts of 400 ms at 512 MB = 200 GB-seconds
    const started = { ...quiet, coldStarts: 1_000 };

    // Act
    const usd = scenarioCostUsd(started, pricing('http-api'));

    // Assess: and each environment's share of key reloads, none over a scenario of no length
    expect(usd).toBeCloseTo(200 * PRICES.lambdaArm64PerGbSecond, 9);
  });
});

describe('Function: capacityLine', () => {
  it('prints the line checks read', () => {
    // Prepare
    const result: ScenarioResult = {
      offered: 37_800,
      turnedAway: 0,
      turnedAwayBy: NOTHING_TURNED_AWAY,
      invocations: 37_800,
      queued: 37_800,
      coldStarts: 102,
      peakConcurrency: 102,
      peakKeyLoadsPerSecond: 102,
      drainedSeconds: 180.027,
    };

    // Act and Assess
    expect(capacityLine('http-api', '1h-at-10/s-resent-at-200/s', result, 0.1649)).toBe(
      'capacity http-api 1h-at-10/s-resent-at-200/s: turned away 0 of 37800, drained in 180 s, peak concurrency 102, cost $0.16',
    );
  });
});
