import {
  type FirehoseClient,
  PutRecordBatchCommand,
  PutRecordCommand,
} from '@aws-sdk/client-firehose';
import { ARCHIVE_LIMITS } from '../contract/archive-layout.js';
import { withAbortAfter } from './abort-after.js';
import { type ArchiveRecord, archiveLine, FIREHOSE_LIMITS } from './archive-record.js';
import { BatchEntryError, turnBatches } from './turn-batches.js';

/** Where the handler puts archive records; never throws, never waits past its bound. */
export interface ArchiveWriter {
  /**
   * Puts one record (one JSON line), giving up after {@link ARCHIVE_LIMITS}.writeBoundMs or at
   * `deadlineAt`, whichever is sooner.
   * @returns `undefined` when the record was taken, else the error (for the metric and log)
   */
  write(record: ArchiveRecord, deadlineAt: number): Promise<unknown>;
}

/**
 * An archive writer putting records to a Firehose delivery stream (Direct PUT), which buffers
 * them into the archive bucket. Each record ends with a newline, so an object is JSON Lines, and
 * fits Firehose's record limit (see `archiveLine`).
 *
 * @param client - Firehose client (see `ARCHIVE_CLIENT_SETTINGS` in the handler)
 * @param streamName - `ARCHIVE_STREAM`
 * @param now - clock in milliseconds
 */
export function firehoseArchive(
  client: FirehoseClient,
  streamName: string,
  now: () => number = Date.now,
): ArchiveWriter {
  const put = turnBatches<Uint8Array>(
    {
      limits: {
        items: FIREHOSE_LIMITS.batchRecords,
        bytes: FIREHOSE_LIMITS.batchBytes,
        bytesOf: (line) => line.length,
      },
      async one(line, timeLeft) {
        await withAbortAfter(timeLeft, (abortSignal) =>
          client.send(
            new PutRecordCommand({ DeliveryStreamName: streamName, Record: { Data: line } }),
            { abortSignal },
          ),
        );
      },
      async many(lines, timeLeft) {
        const output = await withAbortAfter(timeLeft, (abortSignal) =>
          client.send(
            new PutRecordBatchCommand({
              DeliveryStreamName: streamName,
              Records: lines.map((line) => ({ Data: line })),
            }),
            { abortSignal },
          ),
        );
        // One response per record, in order: its record id, or an error code. Every code
        // PutRecordBatch gives a record is Firehose's fault, so each is tried again alone.
        return lines.map((_, index) => {
          const response = output.RequestResponses?.[index];
          if (response?.RecordId !== undefined && response.ErrorCode === undefined)
            return undefined;
          return {
            error: new BatchEntryError(response?.ErrorCode ?? 'Missing', response?.ErrorMessage),
            retryAlone: true,
          };
        });
      },
    },
    now,
  );
  return {
    async write(record, deadlineAt) {
      try {
        return await put(
          archiveLine(record),
          Math.min(now() + ARCHIVE_LIMITS.writeBoundMs, deadlineAt),
        );
      } catch (error) {
        return error;
      }
    },
  };
}
