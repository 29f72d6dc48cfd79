import { CONFIG_DEFAULTS } from '../lambda/receiver/config.js';
import { RECEIVER_MEMORY_MB } from '../lib/webhook-receiver.js';
import {
  type CostAssumptions,
  estimateBilledDurationMs,
  estimateMonthlyCost,
  ONE_VCPU_MEMORY_MB,
  PRICES,
} from './cost-model.js';
import { measureHandler } from './handler.js';
import type { BenchSection, BenchTable } from './section.js';

/**
 * Assumed SendMessage round trip from Lambda to SQS in the same region, in ms. Not measured here
 * (no AWS account); generous on purpose, so the duration figure errs on the expensive side.
 */
const SQS_ROUND_TRIP_MS = 20;

/**
 * Execution environments assumed warm all month. A million webhooks a month is 0.4 per second on
 * average, which one environment serves; the second stands for bursts and Lambda replacing
 * environments, each new one loading the keys again.
 */
const WARM_ENVIRONMENTS = 2;

const usd = (value: number): string => `$${value.toFixed(2)}`;
const count = (value: number): string =>
  Math.round(value).toLocaleString('en-US', { maximumFractionDigits: 0 });

/** Monthly AWS cost of a million webhooks, from the measured handler latency. */
export const costSection: BenchSection = {
  name: 'cost',
  async run(): Promise<BenchTable> {
    const handler = await measureHandler();
    const billedDurationMs = estimateBilledDurationMs({
      measuredMs: handler.queued.p99Ms,
      memoryMb: RECEIVER_MEMORY_MB,
      sqsRoundTripMs: SQS_ROUND_TRIP_MS,
    });
    const assumptions: CostAssumptions = {
      webhooksPerMonth: 1_000_000,
      billedDurationMs,
      memoryMb: RECEIVER_MEMORY_MB,
      queue: 'standard',
      sqsRequestsPerWebhook: 3,
      warmEnvironments: WARM_ENVIRONMENTS,
      secretCacheSeconds: CONFIG_DEFAULTS.SECRET_CACHE_SECONDS,
      secretCallsPerRefresh: 2,
      daysPerMonth: 30,
    };
    const estimate = estimateMonthlyCost(assumptions);
    const fifo = estimateMonthlyCost({ ...assumptions, queue: 'fifo' });
    const logMegabytes = (handler.queued.outputBytes * assumptions.webhooksPerMonth) / 1e6;
    return {
      title: `Cost of 1 million webhooks a month on AWS (list prices ${PRICES.region}, ${PRICES.date})`,
      columns: ['component', 'quantity', 'list price', 'USD'],
      rows: [
        ...estimate.lines.map((line) => [
          line.component,
          `${count(line.quantity)} ${line.unit}${line.quantity === 1 ? '' : 's'}`,
          line.listPrice,
          usd(line.usd),
        ]),
        ['Total', '', '', usd(estimate.totalUsd)],
      ],
      notes: [
        `Lambda duration: ${billedDurationMs} ms billed per call at ${RECEIVER_MEMORY_MB} MB = the measured in-process p99 of a queued call (${handler.queued.p99Ms.toFixed(2)} ms, handler section) x ${ONE_VCPU_MEMORY_MB}/${RECEIVER_MEMORY_MB} (the vCPU share of ${RECEIVER_MEMORY_MB} MB), + ${SQS_ROUND_TRIP_MS} ms assumed for the SendMessage round trip in the region, rounded up to 1 ms. Conservative: p99 rather than the median (${handler.queued.medianMs.toFixed(2)} ms), and the whole time scaled, though only CPU work slows down.`,
        "SQS: 3 requests per webhook, each body well under 64 KB: the receiver's SendMessage, and the consumer's ReceiveMessage and DeleteMessage counted once per message (a batch of one, as at this rate; larger batches cost less). The event source mapping's empty long polls while idle cost the same whatever the traffic and are not included.",
        `Secrets Manager: after caching, each warm environment reloads the keys at most every SECRET_CACHE_SECONDS (${CONFIG_DEFAULTS.SECRET_CACHE_SECONDS} s) with 2 calls (DescribeSecret + GetSecretValue), assuming ${WARM_ENVIRONMENTS} environments warm all 30 days (an upper bound: an idle environment makes no calls). For PREVIOUS_KEY_GRACE_SECONDS after a rotation a reload makes 3 calls.`,
        `With a FIFO queue (context fifo=true) SQS costs ${usd(fifo.lines.find((line) => line.component.startsWith('SQS'))?.usd ?? Number.NaN)} and the total is ${usd(fifo.totalUsd)}.`,
        `Not included: free tiers (all would lower the figure), the example consumer function, CloudWatch Logs (the receiver writes about ${handler.queued.outputBytes.toFixed(0)} bytes of log and EMF per queued call, ${logMegabytes.toFixed(0)} MB per million), alarms, data transfer. SQS-managed encryption is free.`,
        'Prices: https://aws.amazon.com/api-gateway/pricing/, https://aws.amazon.com/lambda/pricing/, https://aws.amazon.com/sqs/pricing/, https://aws.amazon.com/secrets-manager/pricing/.',
      ],
    };
  },
};
