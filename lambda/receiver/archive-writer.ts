import { type FirehoseClient, PutRecordCommand } from '@aws-sdk/client-firehose';
import { ARCHIVE_LIMITS } from '../contract/archive-layout.js';
import { WebhookReceiverError } from '../core/errors.js';
import { withAbortAfter } from './abort-after.js';
import { type ArchiveRecord, archiveLine } from './archive-record.js';

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
 * An archive writer putting each record to a Firehose delivery stream (Direct PUT) with one
 * PutRecord; Firehose buffers them into the archive bucket. Each record ends with a newline, so
 * an object is JSON Lines, and fits Firehose's record limit (see `archiveLine`).
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
      const giveUpAt = Math.min(now() + ARCHIVE_LIMITS.writeBoundMs, deadlineAt);
      try {
        await withAbortAfter(Math.max(1, giveUpAt - now()), (abortSignal) =>
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
        // `undefined` means taken: a write that failed must never read as one.
        return error ?? new WebhookReceiverError('PutRecord failed without an error');
      }
    },
  };
}
