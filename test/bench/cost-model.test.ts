import { describe, expect, it } from 'vitest';
import {
  archivePerMillionLine,
  estimateArchiveCost,
  estimatePutObjectPerCallCost,
  FIREHOSE_RECORD_STEP_BYTES,
} from '../../bench/archive-cost.js';
import {
  type CostInputs,
  costPerMillionLine,
  costPerMillionWithIdempotencyLine,
  estimateBilledDurationMs,
  estimateCostPerMillion,
  IDEMPOTENCY_WRITE_REQUESTS,
  idempotencyLine,
  idempotencyPerMillionLine,
} from '../../bench/cost-model.js';
import { estimateEndpointMonthlyCost, estimateFixedMonthlyCost } from '../../bench/monthly-cost.js';
import { PRICE_SOURCES, PRICES } from '../../bench/prices.js';

/**
 * One million webhooks through the HTTP API on the deployed defaults (the consumer with its
 * idempotency table), with a 38 ms billed duration.
 */
const INPUTS: CostInputs = {
  ingress: 'http-api',
  receiverBilledMs: 38,
  receiverMemoryMb: 512,
  queue: 'standard',
  consumerBatchSize: 10,
  consumerBilledMsPerBatch: 100,
  consumerMemoryMb: 256,
  warmEnvironments: 2,
  secretCacheSeconds: 300,
  secretCallsPerRefresh: 2,
  daysPerMonth: 30,
  receiverLogBytesPerCall: 854,
  platformLogBytesPerInvocation: 246,
  accessLogBytesPerCall: 300,
  idempotencyWritesPerRecord: 2,
};

function byComponent(inputs: CostInputs) {
  return Object.fromEntries(
    estimateCostPerMillion(inputs).lines.map(({ component, quantity, usd }) => [
      component,
      { quantity, usd },
    ]),
  );
}

describe('Function: estimateBilledDurationMs', () => {
  it('stretches the measured time by the vCPU share of 512 MB, adds the SQS round trip and rounds up to 1 ms', () => {
    // Act
    const billed = estimateBilledDurationMs({ measuredMs: 2, memoryMb: 512, sqsRoundTripMs: 20 });

    // Assess: 2 ms x 1769/512 = 6.91 ms, + 20 ms = 26.91 ms, billed as 27 ms
    expect(billed).toBe(27);
  });

  it('does not shrink the measured time at or above one full vCPU (1769 MB)', () => {
    expect(estimateBilledDurationMs({ measuredMs: 2.3, memoryMb: 3008, sqsRoundTripMs: 20 })).toBe(
      23,
    );
  });

  it('bills at least 1 ms', () => {
    expect(estimateBilledDurationMs({ measuredMs: 0, memoryMb: 512, sqsRoundTripMs: 0 })).toBe(1);
  });
});

describe('Function: estimateCostPerMillion', () => {
  it('prices each component of a million webhooks through the HTTP API', () => {
    // Act
    const lines = byComponent(INPUTS);

    // Assess
    expect(lines['API Gateway HTTP API calls']).toEqual({ quantity: 1_000_000, usd: 1 });
    expect(lines['Receiver Lambda requests']?.usd).toBeCloseTo(0.2, 10);
    // 1,000,000 x 0.038 s x 0.5 GB = 19,000 GB-s at $0.0000133334
    expect(lines['Receiver Lambda duration (arm64)']?.quantity).toBeCloseTo(19_000, 6);
    expect(lines['Receiver Lambda duration (arm64)']?.usd).toBeCloseTo(0.2533346, 10);
    // 1,000,000 sends + 100,000 batches x (1 receive + 1 delete)
    const sqs = lines['SQS standard requests (send, receive and delete per batch of 10)'];
    expect(sqs).toEqual({ quantity: 1_200_000, usd: expect.closeTo(0.48, 10) });
    expect(lines['Consumer Lambda requests']).toEqual({
      quantity: 100_000,
      usd: expect.closeTo(0.02, 10),
    });
    // 100,000 x 0.1 s x 0.25 GB = 2,500 GB-s
    expect(lines['Consumer Lambda duration (arm64)']?.quantity).toBeCloseTo(2_500, 6);
    // 1,000,000 records x 2 writes at $0.625 per million write request units
    expect(lines['DynamoDB idempotency writes (2 per record, on-demand)']).toEqual({
      quantity: 2_000_000,
      usd: expect.closeTo(1.25, 10),
    });
    // 2 environments x (30 days / 300 s = 8,640 reloads) x 2 calls = 34,560 calls at $0.05 / 10,000
    expect(lines['Secrets Manager API calls (after caching)']).toEqual({
      quantity: 34_560,
      usd: expect.closeTo(0.1728, 10),
    });
    // 1,000,000 x (854 + 246 + 300) + 100,000 x 246 bytes = 1.4246 GB at $0.50
    expect(lines['CloudWatch Logs ingested']?.quantity).toBeCloseTo(1.4246, 10);
    expect(lines['CloudWatch Logs ingested']?.usd).toBeCloseTo(0.7123, 10);
  });

  it('totals the lines', () => {
    // Act
    const { lines, totalUsd } = estimateCostPerMillion(INPUTS);

    // Assess
    expect(totalUsd).toBeCloseTo(
      lines.reduce((sum, line) => sum + line.usd, 0),
      10,
    );
    expect(totalUsd).toBeCloseTo(
      1 + 0.2 + 0.2533346 + 0.48 + 0.02 + 0.0333335 + 1.25 + 0.1728 + 0.7123,
      6,
    );
  });

  it('charges $3.50 per million for the REST API and nothing for a function URL', () => {
    // Act
    const rest = estimateCostPerMillion({ ...INPUTS, ingress: 'rest-api' }).lines[0];
    const url = estimateCostPerMillion({ ...INPUTS, ingress: 'function-url' }).lines[0];

    // Assess
    expect(rest).toMatchObject({ component: 'API Gateway REST API calls', usd: 3.5 });
    expect(url).toMatchObject({ component: 'Lambda function URL calls', usd: 0 });
  });

  it('charges nothing for DynamoDB without the idempotency table', () => {
    // Act
    const lines = byComponent({ ...INPUTS, idempotencyWritesPerRecord: 0 });

    // Assess
    expect(lines['DynamoDB idempotency writes (0 per record, on-demand)']).toEqual({
      quantity: 0,
      usd: 0,
    });
  });

  it('charges the FIFO request price when the queue is FIFO', () => {
    // Act
    const lines = byComponent({ ...INPUTS, queue: 'fifo' });

    // Assess
    expect(lines['SQS fifo requests (send, receive and delete per batch of 10)']?.usd).toBeCloseTo(
      0.6,
      10,
    );
  });
});

describe('Function: estimateFixedMonthlyCost', () => {
  it('prices the secret and each alarm per month, apart from the traffic', () => {
    // Act
    const { lines, totalUsd } = estimateFixedMonthlyCost({ secrets: 1, alarms: 7 });

    // Assess
    expect(lines.map(({ usd }) => usd)).toEqual([0.4, expect.closeTo(0.7, 10)]);
    expect(totalUsd).toBeCloseTo(1.1, 10);
  });
});

describe('Function: estimateEndpointMonthlyCost', () => {
  it("prices an endpoint's secret, its key ring's reloads in each warm environment and its silence alarm", () => {
    // Act: the cost table's assumptions, 2 warm environments reloading every 300 s for 30 days
    const { lines, totalUsd } = estimateEndpointMonthlyCost({
      warmEnvironments: 2,
      secretCacheSeconds: 300,
      secretCallsPerRefresh: 2,
      daysPerMonth: 30,
    });

    // Assess: 2 x 8,640 reloads x 2 calls = 34,560 calls at $0.05 per 10,000
    expect(lines.map(({ quantity }) => quantity)).toEqual([1, 34_560, 1]);
    expect(lines[1]?.usd).toBeCloseTo(0.1728, 10);
    expect(lines[2]?.usd).toBeCloseTo(0.1, 10);
    expect(totalUsd).toBeCloseTo(0.6728, 10);
  });
});

describe('Function: idempotencyLine', () => {
  it('prices 2 writes per processed record and 1 per suppressed copy at $0.625 per million', () => {
    // Act
    const processed = idempotencyLine(1_000_000, IDEMPOTENCY_WRITE_REQUESTS.processed);
    const copies = idempotencyLine(1_000_000, IDEMPOTENCY_WRITE_REQUESTS.suppressedCopy);

    // Assess
    expect(processed).toMatchObject({
      quantity: 2_000_000,
      listPrice: '$0.625 per million write request units',
    });
    expect(processed.usd).toBeCloseTo(1.25, 10);
    expect(copies.usd).toBeCloseTo(0.625, 10);
  });
});

describe('Function: idempotencyPerMillionLine', () => {
  it('prints a line that checks reading the per-ingress lines do not take for a front door', () => {
    // Act
    const printed = idempotencyPerMillionLine(1.25);

    // Assess
    expect(printed).toBe('dynamodb idempotency per million records: $1.25');
    expect(printed).not.toMatch(/^cost per million /);
  });
});

describe('Function: costPerMillionLine', () => {
  it('prints the line checks read, with two decimals', () => {
    expect(costPerMillionLine('function-url', 0.9049)).toBe('cost per million function-url: $0.90');
  });
});

describe('Function: estimateArchiveCost', () => {
  const ARCHIVE = {
    recordBytes: 2038,
    archiveDays: 30,
    daysPerMonth: 30,
    bufferBytes: 5 * 1024 * 1024,
  };

  it('bills each record as 5 KB of Firehose ingestion, stores its bytes for archiveDays, and writes one object per buffer', () => {
    // Act
    const { lines, totalUsd } = estimateArchiveCost(ARCHIVE, 1_000_000);

    // Assess
    const gb = 1024 ** 3;
    expect(lines.map(({ quantity }) => quantity)).toEqual([
      (1_000_000 * FIREHOSE_RECORD_STEP_BYTES) / gb,
      (1_000_000 * 2038) / gb,
      Math.ceil((1_000_000 * 2038) / (5 * 1024 * 1024)),
    ]);
    // 4.77 GB x $0.029 + 1.90 GB-month x $0.023 + 389 PUTs x $0.000005
    expect(totalUsd).toBeCloseTo(0.1383 + 0.0437 + 0.0019, 3);
    expect(totalUsd).toBeLessThanOrEqual(0.25);
  });

  it('stores a record half as long for half the days, and rounds a 6 KB record up to 10 KB', () => {
    // Act
    const half = estimateArchiveCost({ ...ARCHIVE, archiveDays: 15 }, 1_000_000);
    const large = estimateArchiveCost({ ...ARCHIVE, recordBytes: 6 * 1024 }, 1_000_000);

    // Assess
    expect(half.lines[1]?.quantity).toBeCloseTo((1_000_000 * 2038) / 1024 ** 3 / 2, 6);
    expect(large.lines[0]?.quantity).toBeCloseTo((1_000_000 * 10 * 1024) / 1024 ** 3, 6);
  });

  it('costs a small share of one PutObject per call', () => {
    expect(estimatePutObjectPerCallCost(1_000_000)).toBeCloseTo(5, 6);
    expect(archivePerMillionLine(0.184)).toBe('archive per million 1 KB deliveries: $0.18');
  });
});

describe('Function: costPerMillionWithIdempotencyLine', () => {
  it('prints the default stack line checks read, with two decimals', () => {
    expect(costPerMillionWithIdempotencyLine('http-api', 2.514)).toBe(
      'cost per million http-api with idempotency: $2.51',
    );
  });
});

describe('Constant: PRICES', () => {
  it('gives every price its source page, region and date', () => {
    // Prepare
    const priced = Object.keys(PRICES).filter((key) => key !== 'date' && key !== 'region');

    // Assess
    expect(Object.keys(PRICE_SOURCES).sort()).toEqual(priced.sort());
    for (const source of Object.values(PRICE_SOURCES)) {
      expect(source).toMatch(/^https:\/\/aws\.amazon\.com\//);
    }
    expect(PRICES.region).toMatch(/^[a-z]{2}(-[a-z]+)+-\d$/);
    expect(PRICES.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
