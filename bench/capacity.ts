import { cpus, loadavg } from 'node:os';
import { STAGE_THROTTLE_DEFAULTS } from '../lambda/contract/capacity-settings.js';
import { RECEIVER_MEMORY_MB } from '../lib/receiver-settings.js';
import {
  bindingLimit,
  type CapacityInputs,
  capacityInputs,
  capacityLine,
  catchUpScenario,
  forgedCallsPerSecond,
  forgedFloodCostPerHourUsd,
  type Limit,
  nearestLimit,
  type Scenario,
  type ScenarioPricing,
  type ScenarioResult,
  scenarioCostUsd,
  steadyScenario,
} from './capacity-model.js';
import { simulate } from './capacity-simulation.js';
import { measureColdStart } from './cold-start.js';
import {
  accessLogBytesPerCall,
  queuedCallBilledMs,
  queuedCallCostInputs,
  SECRET_CALLS_PER_REFRESH,
  SQS_ROUND_TRIP_MS,
} from './cost.js';
import {
  estimateBilledDurationMs,
  estimateTurnedAwayCost,
  ONE_VCPU_MEMORY_MB,
  type PricedIngress,
  type UnqueuedCallInputs,
} from './cost-model.js';
import { measureHandler } from './handler.js';
import { cloudWatchBytesPerCall, DEPLOYED_PLATFORM_BYTES_PER_CALL } from './logs.js';
import { PRICES } from './prices.js';
import { QUOTAS, type Quota } from './quotas.js';
import type { BenchSection, BenchTable } from './section.js';

const INGRESSES: readonly PricedIngress[] = ['http-api', 'rest-api', 'function-url'];

/**
 * Assumed, not measured (no AWS account here): Lambda creating an execution environment and
 * starting Node.js before the bundle loads. Billed with the module load as the INIT phase.
 */
const RUNTIME_START_MS = 150;

/**
 * Assumed, not measured: a new environment's first key load, DescribeSecret then GetSecretValue
 * in the Region, each on a new TLS connection, before its first call is answered.
 */
const FIRST_KEY_LOAD_MS = 80;

/** New deliveries a second on an ordinary day, and so the rate an outage holds back. */
const LIVE_RATE = 10;
const OUTAGE_SECONDS = 3600;
const RESEND_RATES = [50, 200, 1_000];

/** The catch-up the construct's defaults are chosen for: none of it may be turned away. */
export const DEFAULTS_SCENARIO = catchUpScenario(LIVE_RATE, OUTAGE_SECONDS, 200);

const SCENARIOS: readonly Scenario[] = [
  steadyScenario(`steady-day-at-${LIVE_RATE}/s`, LIVE_RATE, 86_400),
  ...RESEND_RATES.map((rate) => catchUpScenario(LIVE_RATE, OUTAGE_SECONDS, rate)),
];

/** The steady rates docs/capacity.md reads the binding limit at, each held this long. */
const STEADY_RATES = [10, 100, 1_000, 10_000];
const STEADY_SECONDS = 60;

/** What the sender gets when Lambda refuses an invocation: API Gateway turns it into a 500. */
const lambdaAnswer = (ingress: PricedIngress): string =>
  ingress === 'function-url' ? '429 from Lambda' : '500 from API Gateway';

/** How each limit shows to the sender, which quota it is, and what raises it. */
const LIMIT_DETAILS: Record<
  Limit,
  {
    readonly name: string;
    readonly quota: Quota | undefined;
    readonly answer: (ingress: PricedIngress) => string;
    readonly change: string;
  }
> = {
  stageThrottle: {
    name: 'stage throttle',
    quota: undefined,
    answer: () => '429 from API Gateway',
    change: 'throttleRateLimit and throttleBurstLimit (props, or -c context keys)',
  },
  accountApiQuota: {
    name: 'API Gateway account throttle',
    quota: QUOTAS.apiGatewayAccountRate,
    answer: () => '429 from API Gateway',
    change: 'quota increase (Service Quotas, Amazon API Gateway, L-8A5B8E43)',
  },
  lambdaRequestRate: {
    name: 'Lambda request rate',
    quota: QUOTAS.lambdaRequestsPerConcurrency,
    answer: lambdaAnswer,
    change:
      'more concurrency: quota increase of Lambda Concurrent executions (or a larger reservedConcurrency)',
  },
  lambdaConcurrency: {
    name: 'Lambda concurrency',
    quota: QUOTAS.lambdaConcurrency,
    answer: lambdaAnswer,
    change:
      'quota increase of Lambda Concurrent executions (or a larger reservedConcurrency where one is set)',
  },
  lambdaScaling: {
    name: 'Lambda scaling rate',
    quota: QUOTAS.lambdaScalingRate,
    answer: lambdaAnswer,
    change: 'not raisable: a sender that ramps up, or provisioned concurrency',
  },
  keyLoads: {
    name: 'key loads (Secrets Manager GetSecretValue, KMS Decrypt)',
    quota: QUOTAS.kmsSymmetricRequests,
    answer: () => '503 keys_unavailable, Retry-After: 30',
    change: 'quota increase of KMS Cryptographic operations (symmetric) request rate',
  },
  queueSends: {
    name: 'SQS FIFO throughput',
    quota: QUOTAS.sqsFifoSends,
    answer: () => '503 queue_unavailable, Retry-After: 5',
    change: 'FIFO high throughput mode (queueProps), or a standard queue',
  },
};

/**
 * The smallest reserved concurrency that turns none of `scenario` away through a function URL,
 * among those the default account can reserve; undefined if none does.
 */
function smallestSufficientReservation(
  scenario: Scenario,
  limitsFor: (reservedConcurrency: number) => CapacityInputs,
): number | undefined {
  let low = 1;
  let high = QUOTAS.lambdaConcurrency.value - QUOTAS.lambdaUnreservedMinimum.value;
  if (simulate(scenario, limitsFor(high)).turnedAway > 0) return undefined;
  // More concurrency never turns more calls away, so the answer can be bisected.
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (simulate(scenario, limitsFor(middle)).turnedAway === 0) high = middle;
    else low = middle + 1;
  }
  return high;
}

const usd = (value: number): string => `$${value.toFixed(2)}`;
const count = (value: number): string => value.toLocaleString('en-US');

/** "12 (stage throttle 10, Lambda concurrency 2)", or "0". */
function turnedAwayCell(result: ScenarioResult): string {
  const causes = (Object.keys(LIMIT_DETAILS) as Limit[])
    .filter((limit) => result.turnedAwayBy[limit] > 0)
    .map((limit) => `${LIMIT_DETAILS[limit].name} ${count(result.turnedAwayBy[limit])}`);
  return causes.length === 0 ? '0' : `${count(result.turnedAway)} (${causes.join(', ')})`;
}

function quotaCell(quota: Quota | undefined, inputs: CapacityInputs): string {
  if (quota === undefined) {
    return `the construct's: ${inputs.stageThrottle?.ratePerSecond ?? '-'}/s, burst ${inputs.stageThrottle?.burst ?? '-'}`;
  }
  return `${quota.name}: ${count(quota.value)} ${quota.unit} (raisable: ${quota.raisable})`;
}

/** Per front door and scenario, with the defaults; then steady rates; then the model's inputs. */
export const capacitySection: BenchSection = {
  name: 'capacity',
  async run(): Promise<BenchTable[]> {
    const [loadBefore = 0] = loadavg();
    // Measured in this run: by the handler and cold-start sections when they ran before this
    // one, else here (the measurements are shared, never taken twice).
    const handler = await measureHandler();
    const coldStart = await measureColdStart();
    const warmCallMs = queuedCallBilledMs(handler);
    const forgedCallMs = estimateBilledDurationMs({
      measuredMs: handler.unauthorized.p99Ms,
      memoryMb: RECEIVER_MEMORY_MB,
      sqsRoundTripMs: 0,
    });
    const initBilledMs = estimateBilledDurationMs({
      measuredMs: coldStart.receiverLoadCpuMs,
      memoryMb: RECEIVER_MEMORY_MB,
      sqsRoundTripMs: RUNTIME_START_MS,
    });
    const coldStartMs = initBilledMs + FIRST_KEY_LOAD_MS;
    const limitsOf = (ingress: PricedIngress, reservedConcurrency?: number): CapacityInputs =>
      capacityInputs({
        ingress,
        ...(ingress === 'function-url' ? {} : { throttle: STAGE_THROTTLE_DEFAULTS }),
        ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
        accountConcurrency: QUOTAS.lambdaConcurrency.value,
        queue: 'standard',
        warmCallSeconds: warmCallMs / 1000,
        coldStartSeconds: coldStartMs / 1000,
      });
    const pricingOf = (ingress: PricedIngress): ScenarioPricing => ({
      // The default stack: the example consumer with its idempotency table.
      queuedCall: queuedCallCostInputs(ingress, handler, { idempotency: true }),
      accessLogBytesPerCall: accessLogBytesPerCall(ingress),
      initBilledMs,
    });
    const forgedCallOf = (ingress: PricedIngress): UnqueuedCallInputs => ({
      ingress,
      receiverBilledMs: forgedCallMs,
      receiverMemoryMb: RECEIVER_MEMORY_MB,
      logBytesPerCall:
        cloudWatchBytesPerCall(handler.unauthorized) +
        DEPLOYED_PLATFORM_BYTES_PER_CALL +
        accessLogBytesPerCall(ingress),
    });

    const reservation = smallestSufficientReservation(DEFAULTS_SCENARIO, (reserved) =>
      limitsOf('function-url', reserved),
    );
    const receivers = [
      ...INGRESSES.map((ingress) => ({ ingress, label: ingress, inputs: limitsOf(ingress) })),
      ...(reservation === undefined
        ? []
        : [
            {
              ingress: 'function-url' as const,
              label: `function-url, reservedConcurrency ${reservation}`,
              inputs: limitsOf('function-url', reservation),
            },
          ]),
    ];

    const lines: string[] = [];
    const scenarioRows = receivers.flatMap(({ ingress, label, inputs }) =>
      SCENARIOS.map((scenario) => {
        const result = simulate(scenario, inputs);
        const cost = scenarioCostUsd(result, pricingOf(ingress));
        // One line per front door and scenario, with the construct's defaults only.
        if (label === ingress) lines.push(capacityLine(ingress, scenario.name, result, cost));
        return [
          label,
          scenario.name,
          count(result.offered),
          turnedAwayCell(result),
          count(Math.round(result.drainedSeconds)),
          count(result.peakConcurrency),
          count(result.coldStarts),
          `${count(result.peakKeyLoadsPerSecond * SECRET_CALLS_PER_REFRESH)} / ${count(result.peakKeyLoadsPerSecond)}`,
          usd(cost),
        ];
      }),
    );
    process.stdout.write(`${lines.join('\n')}\n`);

    const steadyRows = INGRESSES.flatMap((ingress) => {
      const inputs = limitsOf(ingress);
      return STEADY_RATES.map((rate) => {
        const result = simulate(steadyScenario(`steady-${rate}/s`, rate, STEADY_SECONDS), inputs);
        const binding = bindingLimit(result);
        const next = nearestLimit(inputs);
        const limit = binding ?? next.limit;
        const detail = LIMIT_DETAILS[limit];
        return [
          ingress,
          count(rate),
          `${((100 * result.turnedAway) / result.offered).toFixed(1)}%`,
          binding === undefined
            ? `none (first to bind: ${detail.name} at ${count(Math.round(next.ratePerSecond))}/s)`
            : `${detail.name}: ${detail.answer(ingress)}`,
          quotaCell(detail.quota, inputs),
          detail.change,
          usd((scenarioCostUsd(result, pricingOf(ingress)) / STEADY_SECONDS) * 3600),
        ];
      });
    });

    const forged = receivers.map(({ ingress, label, inputs }) => {
      const perSecond = forgedCallsPerSecond(inputs, forgedCallMs / 1000);
      return `${label}: ${count(Math.round(perSecond))} forged calls a second reach the receiver at most, ${usd(forgedFloodCostPerHourUsd(inputs, forgedCallOf(ingress)))} an hour`;
    });
    const beyondStage = INGRESSES.filter((ingress) => ingress !== 'function-url').map((ingress) => {
      const calls = (QUOTAS.apiGatewayAccountRate.value - STAGE_THROTTLE_DEFAULTS.rateLimit) * 3600;
      const [asCalls, logLines] = estimateTurnedAwayCost(
        ingress,
        calls,
        accessLogBytesPerCall(ingress),
      ).lines;
      return `${ingress} ${usd(logLines?.usd ?? Number.NaN)} of access log lines an hour, plus ${usd(asCalls?.usd ?? Number.NaN)} if AWS bills them as calls`;
    });
    const moduleLoadScaledMs =
      coldStart.receiverLoadCpuMs * (ONE_VCPU_MEMORY_MB / RECEIVER_MEMORY_MB);

    const scenarios: BenchTable = {
      title: `Capacity per front door with the construct's defaults (model; list prices ${PRICES.region}, ${PRICES.date})`,
      columns: [
        'front door',
        'scenario',
        'calls made',
        'turned away (by)',
        'drained in s',
        'peak concurrency',
        'cold starts',
        'peak Secrets Manager / KMS calls a second',
        'cost',
      ],
      rows: scenarioRows,
      notes: [
        ...lines,
        `Defaults: stage throttle ${STAGE_THROTTLE_DEFAULTS.rateLimit} calls a second, burst ${STAGE_THROTTLE_DEFAULTS.burstLimit} (lambda/contract/capacity-settings.ts); no reserved concurrency, so the receiver shares the account's ${count(QUOTAS.lambdaConcurrency.value)}; a standard queue; ${RECEIVER_MEMORY_MB} MB. Every scenario starts with no warm environment.`,
        `Sender: new deliveries arrive at ${LIVE_RATE} a second, evenly spaced. ${SCENARIOS[0]?.name}: a day of them (${count(LIVE_RATE * 86_400)} calls). <h>h-at-${LIVE_RATE}/s-resent-at-<r>/s: after an outage of <h> hours (either side's) the sender holds <h> x 3600 x ${LIVE_RATE} deliveries and re-sends them evenly at <r> a second while new ones keep arriving; a call turned away goes back into its backlog and is sent again; "drained in" is when the last of the backlog is answered. "Calls made" counts every attempt, re-sends included.`,
        reservation === undefined
          ? 'No reservation the default account can make (at most 900: Lambda keeps 100 unreserved) takes the 200/s catch-up through a function URL.'
          : `function-url, reservedConcurrency ${reservation}: the smallest reservation that turns none of ${DEFAULTS_SCENARIO.name} away (the burst's cold starts need that many environments at once); an account can reserve it only with a concurrency quota of at least ${reservation + QUOTAS.lambdaUnreservedMinimum.value}. These rows print no capacity line.`,
        `Forged calls (answered 401, ${forgedCallMs} ms billed each: the measured p99 of a 401, ${handler.unauthorized.p99Ms.toFixed(2)} ms, x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB}; ${Math.round(forgedCallOf('http-api').logBytesPerCall)} bytes of logs with an HTTP API's access line): ${forged.join('; ')}. The stage's burst passes once more.`,
        `Calls the stage answers 429 cost no Lambda, but each writes an access log line, and AWS's price list names no exception for them; a flood up to the account's API Gateway quota (${count(QUOTAS.apiGatewayAccountRate.value)} a second) adds at most: ${beyondStage.join('; ')}.`,
        `Turned away: by the stage throttle or the account's API Gateway quota, 429 from API Gateway; by Lambda (request rate, concurrency, scaling rate), 500 from API Gateway (it answers 500 for any invocation Lambda refuses) or 429 from a function URL; key loads, 503 keys_unavailable (Retry-After: 30); the FIFO queue, 503 queue_unavailable (Retry-After: 5).`,
        `Cost: every invocation priced as a queued call of the default stack (front door to consumer and its idempotency writes, bench/cost-model.ts), each cold start's INIT phase billed (${initBilledMs} ms), the key reloads of every environment over the scenario, and every call the front door answered itself at its call price with its access log line (a function URL bills no throttled call). Free tiers not subtracted.`,
        `Secrets Manager / KMS: each new environment loads the keys once (${SECRET_CALLS_PER_REFRESH} Secrets Manager calls, one KMS Decrypt made by Secrets Manager); the quotas (${count(QUOTAS.secretsManagerGetSecretValue.value)} GetSecretValue, ${count(QUOTAS.kmsSymmetricRequests.value)} KMS requests a second at the lowest regional default) are far above these peaks. The queue uses SQS-managed encryption: no KMS call per message.`,
      ],
    };

    const steady: BenchTable = {
      title: `Capacity at steady rates, ${STEADY_SECONDS} s from no warm environment, with the construct's defaults (model)`,
      columns: [
        'front door',
        'calls a second',
        'turned away',
        'binding limit: what the sender sees',
        'quota (default)',
        'what to change',
        'cost per hour',
      ],
      rows: steadyRows,
      notes: [
        'Turned away: the share of calls, counted once (no re-send). The binding limit is the one that turned most away; where none did, the one a rising rate meets first.',
        'Cost per hour: the minute simulated, cold starts included, x 60, calls turned away priced as in the table above.',
        `A FIFO queue (fifo: true) adds its send limit: ${count(QUOTAS.sqsFifoSends.value)} SendMessage calls a second without high throughput mode, binding before the stage's ${STAGE_THROTTLE_DEFAULTS.rateLimit} only if the throttle is raised; in high throughput mode up to ${count(QUOTAS.sqsFifoHighThroughputSends.value)} (${QUOTAS.sqsFifoHighThroughputSends.note}).`,
      ],
    };

    const inputs: BenchTable = {
      title: 'Capacity model inputs',
      columns: ['input', 'value', 'source'],
      rows: [
        ...Object.values(QUOTAS).map((quota: Quota) => [
          quota.name,
          `${count(quota.value)} ${quota.unit}; raisable: ${quota.raisable}${quota.note ? `; ${quota.note}` : ''}`,
          `AWS default, ${quota.source}`,
        ]),
        [
          'stage throttle (throttleRateLimit, throttleBurstLimit)',
          `${STAGE_THROTTLE_DEFAULTS.rateLimit} a second, burst ${STAGE_THROTTLE_DEFAULTS.burstLimit}`,
          'construct default, lambda/contract/capacity-settings.ts',
        ],
        [
          'warm queued call, billed',
          `${warmCallMs} ms`,
          `measured in this run: p99 ${handler.queued.p99Ms.toFixed(2)} ms in process (handler measurement) x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB}, + ${SQS_ROUND_TRIP_MS} ms SendMessage round trip (assumed, as the cost section)`,
        ],
        [
          'forged call (401), billed',
          `${forgedCallMs} ms`,
          `measured in this run: p99 ${handler.unauthorized.p99Ms.toFixed(2)} ms in process x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB}`,
        ],
        [
          'module load at cold start',
          `${moduleLoadScaledMs.toFixed(0)} ms`,
          `measured in this run: median CPU ${coldStart.receiverLoadCpuMs.toFixed(1)} ms of the deployed bundle with source maps (cold-start measurement) x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB}`,
        ],
        ['runtime start before the module loads', `${RUNTIME_START_MS} ms`, 'assumed'],
        [
          'INIT phase billed per cold start',
          `${initBilledMs} ms`,
          'module load + runtime start, rounded up to 1 ms',
        ],
        [
          "a new environment's first key load",
          `${FIRST_KEY_LOAD_MS} ms`,
          'assumed: DescribeSecret then GetSecretValue, each on a new TLS connection in the Region',
        ],
        ['cold start before the first call runs', `${coldStartMs} ms`, 'INIT + first key load'],
        ['prices', `${PRICES.region}, read ${PRICES.date}`, 'bench/prices.ts, each with its page'],
      ],
      notes: [
        `The durations follow the machine's load (a p99 stretches on a busy machine, and the whole of it is scaled as CPU): the 1-minute load average was ${loadBefore.toFixed(2)} when this section started, on ${cpus().length} cores.`,
        'Measured in this run: the handler latencies (the handler measurement, taken once per `npm run bench` and shared with the handler, logs and cost sections) and the module load (the cold-start measurement, shared with the cold-start section). Run alone, `npm run bench -- capacity` takes both measurements itself before modelling. Everything else above is a stated AWS default or an assumption, as marked.',
        'Simulated, not measured: no call reaches AWS. The token bucket is the algorithm API Gateway documents (bench/token-bucket.ts); Lambda, SQS, Secrets Manager and KMS limits are applied as their documented rates (bench/capacity-model.ts). API Gateway applies throttles on a best-effort basis, so real counts near a limit vary.',
      ],
    };
    return [scenarios, steady, inputs];
  },
};
