import { describe, expect, it } from 'vitest';
import {
  type CostAssumptions,
  estimateBilledDurationMs,
  estimateMonthlyCost,
} from '../../bench/cost-model.js';

/** One million webhooks a month on the deployed defaults, with a 52 ms billed duration. */
const ASSUMPTIONS: CostAssumptions = {
  webhooksPerMonth: 1_000_000,
  billedDurationMs: 52,
  memoryMb: 512,
  queue: 'standard',
  sqsRequestsPerWebhook: 3,
  warmEnvironments: 2,
  secretCacheSeconds: 300,
  secretCallsPerRefresh: 2,
  daysPerMonth: 30,
};

describe('Function: estimateBilledDurationMs', () => {
  it('stretches the measured time by the vCPU share of 512 MB, adds the SQS round trip and rounds up to 1 ms', () => {
    // Act
    const billed = estimateBilledDurationMs({ measuredMs: 2, memoryMb: 512, sqsRoundTripMs: 20 });

    // Assess: 2 ms x 1769/512 = 6.91 ms, + 20 ms = 26.91 ms, billed as 27 ms
    expect(billed).toBe(27);
  });

  it('does not shrink the measured time at or above one full vCPU (1769 MB)', () => {
    // Act
    const billed = estimateBilledDurationMs({
      measuredMs: 2.3,
      memoryMb: 3008,
      sqsRoundTripMs: 20,
    });

    // Assess
    expect(billed).toBe(23);
  });

  it('bills at least 1 ms', () => {
    // Act
    const billed = estimateBilledDurationMs({ measuredMs: 0, memoryMb: 512, sqsRoundTripMs: 0 });

    // Assess
    expect(billed).toBe(1);
  });
});

describe('Function: estimateMonthlyCost', () => {
  it('prices each component of a million webhooks at the 2026-11-21 list prices', () => {
    // Act
    const { lines } = estimateMonthlyCost(ASSUMPTIONS);

    // Assess
    const byComponent = Object.fromEntries(
      lines.map(({ component, quantity, usd }) => [component, { quantity, usd }]),
    );
    expect(byComponent['API Gateway REST API calls']).toEqual({ quantity: 1_000_000, usd: 3.5 });
    expect(byComponent['Lambda requests']?.usd).toBeCloseTo(0.2, 10);
    // 1,000,000 x 0.052 s x 0.5 GB = 26,000 GB-s at $0.0000133334
    expect(byComponent['Lambda duration (arm64)']?.quantity).toBeCloseTo(26_000, 6);
    expect(byComponent['Lambda duration (arm64)']?.usd).toBeCloseTo(0.3466684, 10);
    expect(byComponent['SQS standard requests']?.quantity).toBe(3_000_000);
    expect(byComponent['SQS standard requests']?.usd).toBeCloseTo(1.2, 10);
    // 2 environments x (30 days / 300 s = 8,640 refreshes) x 2 calls = 34,560 calls at $0.05 / 10,000
    expect(byComponent['Secrets Manager API calls']?.quantity).toBe(34_560);
    expect(byComponent['Secrets Manager API calls']?.usd).toBeCloseTo(0.1728, 10);
    expect(byComponent['Secrets Manager secret']?.usd).toBe(0.4);
  });

  it('totals the lines', () => {
    // Act
    const { totalUsd } = estimateMonthlyCost(ASSUMPTIONS);

    // Assess: 3.50 + 0.20 + 0.3466684 + 1.20 + 0.1728 + 0.40
    expect(totalUsd).toBeCloseTo(5.8194684, 10);
  });

  it('charges the FIFO request price when the queue is FIFO', () => {
    // Act
    const { lines } = estimateMonthlyCost({ ...ASSUMPTIONS, queue: 'fifo' });

    // Assess
    const sqs = lines.find(({ component }) => component === 'SQS fifo requests');
    expect(sqs?.usd).toBeCloseTo(1.5, 10);
  });
});
