import { type FirehoseClient, PutRecordCommand } from '@aws-sdk/client-firehose';
import { withAbortAfter } from './abort-after.js';
import { ARCHIVE_LIMITS, type ArchiveRecord, archiveLine } from './archive-record.js';

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
  return {
    async write(record, deadlineAt) {
      const timeLeft = Math.max(1, Math.min(ARCHIVE_LIMITS.writeBoundMs, deadlineAt - now()));
      try {
        await withAbortAfter(timeLeft, (abortSignal) =>
          client.send(
            new PutRecordCommand({
              DeliveryStreamName: streamName,
              Record: { Data: archiveLine(record) },
            }),
            { abortSignal },
          ),
        );
        return undefined;
      } catch (error) {
        return error;
      }
    },
  };
}
