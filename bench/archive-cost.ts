import { bill, type CostEstimate, costLine } from './cost-line.js';
import { PRICES } from './prices.js';

/**
 * What the archive of deliveries costs: Firehose ingestion, S3 storage and Firehose's PutObjects.
 * @module
 */

/** Firehose's billing step: each record's size is rounded up to a multiple of 5 KB. */
export const FIREHOSE_RECORD_STEP_BYTES = 5 * 1024;

/** Bytes in one GB as AWS bills data (GiB). */
const GB = 1024 ** 3;

/** What the archive of `calls` deliveries is priced from. */
export interface ArchiveInputs {
  /** Bytes of one archive record (one JSON line), as the receiver writes it. */
  readonly recordBytes: number;
  /** `archiveDays`: how long each record is stored. */
  readonly archiveDays: number;
  readonly daysPerMonth: number;
  /** Firehose's buffer size: it writes one object per this many bytes at most. */
  readonly bufferBytes: number;
}

/**
 * What archiving `calls` deliveries costs: Firehose ingestion (each record rounded up to 5 KB),
 * the S3 storage of the records for `archiveDays`, and the PutObjects of Firehose's buffers (one
 * per full buffer). The receiver's wait for the put is priced by the caller, as Lambda duration.
 */
export function estimateArchiveCost(
  inputs: ArchiveInputs,
  calls: number,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  const billedBytes =
    Math.ceil(inputs.recordBytes / FIREHOSE_RECORD_STEP_BYTES) * FIREHOSE_RECORD_STEP_BYTES;
  return bill([
    costLine(
      `Firehose ingestion (${inputs.recordBytes} B records billed as ${billedBytes / 1024} KB)`,
      (calls * billedBytes) / GB,
      'GB',
      prices.firehoseDirectPutPerGbIngested,
      `$${prices.firehoseDirectPutPerGbIngested} per GB`,
    ),
    costLine(
      `S3 storage for ${inputs.archiveDays} days`,
      ((calls * inputs.recordBytes) / GB) * (inputs.archiveDays / inputs.daysPerMonth),
      'GB-month',
      prices.s3StandardPerGbMonth,
      `$${prices.s3StandardPerGbMonth} per GB-month`,
    ),
    costLine(
      'S3 PUTs of Firehose buffers',
      Math.ceil((calls * inputs.recordBytes) / inputs.bufferBytes),
      'request',
      prices.s3PutPer1kRequests / 1000,
      `$${prices.s3PutPer1kRequests} per 1,000 requests`,
    ),
  ]);
}

/** One PutObject per call instead of Firehose: the write path the archive does not take. */
export function estimatePutObjectPerCallCost(
  calls: number,
  prices: typeof PRICES = PRICES,
): number {
  return (calls * prices.s3PutPer1kRequests) / 1000;
}

/** The line `npm run bench -- cost` prints for the archive's share, exactly as checks read it. */
export function archivePerMillionLine(usd: number): string {
  return `archive per million 1 KB deliveries: $${usd.toFixed(2)}`;
}
