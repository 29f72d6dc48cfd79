import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import * as v from 'valibot';
import { NETWORK_TIMEOUT_MS, withTimeout } from '../../devkit/network.js';
import { UsageError } from '../../devkit/tool-io.js';
import {
  ARCHIVE_LAYOUT,
  archiveHourPrefix,
  MAX_ARCHIVE_DAYS,
} from '../../lambda/contract/archive-layout.js';
import { RECEIVER_TIMEOUT_SECONDS } from '../../lambda/contract/settings.js';
import type { ArchiveRecord } from '../../lambda/receiver/archive-record.js';

/**
 * Reading the archive of deliveries for a time window: list the keys of the hours that can hold
 * it, read each object's JSON lines, keep the records received inside the window, oldest first.
 * @module
 */

/** An archive record and the object it is in. */
export interface ArchiveEntry {
  /** The object's key. */
  readonly key: string;
  readonly record: ArchiveRecord;
}

/** A time window: `from` included, `to` excluded. */
export interface TimeWindow {
  readonly from: Date;
  readonly to: Date;
}

const headerValue = v.union([v.string(), v.array(v.string())]);

/** What a line must hold to be taken as a record; fields are checked as the replay uses them. */
const ArchiveRecordSchema = v.looseObject({
  v: v.literal(1),
  received_at: v.pipe(v.string(), v.isoTimestamp()),
  api_request_id: v.optional(v.string()),
  endpoint: v.optional(v.string()),
  verdict: v.picklist(['queued', 'ignored', 'rejected']),
  status: v.number(),
  reason: v.optional(v.string()),
  headers: v.record(v.string(), headerValue),
  source_ip: v.optional(v.string()),
  body_base64: v.string(),
  body_bytes: v.number(),
  body_truncated: v.optional(v.literal(true)),
  dedup_key: v.optional(v.string()),
  message: v.optional(
    v.object({
      attributes: v.record(v.string(), v.string()),
      signature_timestamp: v.number(),
      deduplication_id: v.string(),
      group_id: v.string(),
    }),
  ),
});

const DAY_MS = 86_400_000;

/**
 * The most days an archive holds records of: the longest retention `archiveDays` allows
 * ({@link MAX_ARCHIVE_DAYS}), and the day S3 may take beyond it, as a lifecycle expiry rounds up
 * to the next midnight UTC.
 */
export const LONGEST_ARCHIVE_DAYS = MAX_ARCHIVE_DAYS + 1;

/**
 * The longest window an archive can hold records of: {@link LONGEST_ARCHIVE_DAYS}, plus
 * Firehose's buffer, by which an object's oldest record can be older than the object S3 expires
 * by its age.
 */
export const LONGEST_ARCHIVE_WINDOW_MS =
  LONGEST_ARCHIVE_DAYS * DAY_MS + ARCHIVE_LAYOUT.bufferSeconds * 1000;

/**
 * Refuses a window longer than any archive holds, which can find nothing S3 has not deleted
 * already (a window of centuries used to make millions of ListObjectsV2 calls, and to run out of
 * memory building their list).
 *
 * @param window - the window asked for
 * @throws {UsageError} when it is longer than {@link LONGEST_ARCHIVE_WINDOW_MS}
 */
export function checkArchiveWindow({ from, to }: TimeWindow): void {
  const length = to.getTime() - from.getTime();
  if (length <= LONGEST_ARCHIVE_WINDOW_MS) return;
  throw new UsageError(
    `a window of ${Math.ceil(length / DAY_MS)} days is longer than any archive keeps: at most ${LONGEST_ARCHIVE_DAYS} days (the most archiveDays allows, and a day for S3's expiry) plus Firehose's ${ARCHIVE_LAYOUT.bufferSeconds / 60}-minute buffer`,
  );
}

/** The keys of the archive objects that can hold records of a window: a range in key order. */
export interface ArchiveKeyRange {
  /** Every key of the range sorts after this one (the first hour's prefix, itself no object). */
  readonly startAfter: string;
  /** Every key of the range sorts before this one (the prefix of the hour after the last). */
  readonly endBefore: string;
}

/**
 * The keys of the objects that can hold records received in `window`. An object's key starts
 * with the hour prefix of its oldest record's arrival (`deliveries/yyyy/MM/dd/HH/`, zero-padded,
 * so keys sort as time does), which Firehose may have buffered up to
 * `ARCHIVE_LAYOUT.bufferSeconds` before the newest (plus a second for the write itself); a
 * record arrives at Firehose up to the receiver's timeout after its receipt time (a slow key load
 * and send come first). One range, listed in pages of objects, rather than one listing per hour:
 * a month's window is then a few ListObjectsV2 calls instead of 720 or more.
 *
 * @throws {UsageError} as {@link checkArchiveWindow}
 */
export function windowKeyRange(window: TimeWindow): ArchiveKeyRange {
  checkArchiveWindow(window);
  const { from, to } = window;
  const hour = 3_600_000;
  const first = Math.floor((from.getTime() - ARCHIVE_LAYOUT.bufferSeconds * 1000 - 1000) / hour);
  const last = Math.floor((to.getTime() + RECEIVER_TIMEOUT_SECONDS * 1000 + 1000) / hour);
  return {
    startAfter: archiveHourPrefix(new Date(first * hour)),
    endBefore: archiveHourPrefix(new Date((last + 1) * hour)),
  };
}

/** Result of {@link readArchiveWindow}: the records, and how many lines could not be read. */
export interface ArchiveWindow {
  readonly calls: readonly ArchiveEntry[];
  readonly unreadableLines: number;
}

/** Options of {@link readArchiveWindow}. */
export interface ReadArchiveOptions {
  /** Called after each page of the listing that more pages follow, with the keys listed so far. */
  readonly onListed?: (listed: number) => void;
  /** Called after each object read, with how many were read of how many listed. */
  readonly onObject?: (read: number, listed: number) => void;
  /** How long one S3 call may take (the tools' {@link NETWORK_TIMEOUT_MS} by default). */
  readonly timeoutMs?: number;
  /** Added to the message when nothing listens at the archive's address. */
  readonly refusedHint?: string;
}

/**
 * The records received in `window`, oldest first (a tie keeps the archive's order).
 *
 * @param s3 - client of the bucket's region (or of the local archive)
 * @param bucket - the archive bucket
 * @param window - the window
 * @param options - progress callbacks, timeout and hint
 * @throws {UsageError} when the window is longer than any archive holds ({@link checkArchiveWindow})
 * @throws {NetworkError} when an S3 call gets no answer in time or its connection fails
 */
export async function readArchiveWindow(
  s3: S3Client,
  bucket: string,
  window: TimeWindow,
  options: ReadArchiveOptions = {},
): Promise<ArchiveWindow> {
  const {
    onListed = () => {},
    onObject = () => {},
    timeoutMs = NETWORK_TIMEOUT_MS,
    refusedHint,
  } = options;
  const call = <T>(send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> =>
    withTimeout(`Could not read the archive ${bucket}`, timeoutMs, send, {
      ...(refusedHint === undefined ? {} : { refusedHint }),
    });
  const keys: string[] = [];
  const { startAfter, endBefore } = windowKeyRange(window);
  let token: string | undefined;
  let more = true;
  while (more) {
    const page = await call((abortSignal) =>
      s3.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: ARCHIVE_LAYOUT.deliveriesPrefix,
          // S3 takes StartAfter with the first page only; the token carries on from there.
          ...(token === undefined ? { StartAfter: startAfter } : { ContinuationToken: token }),
        }),
        { abortSignal },
      ),
    );
    // Keys come in UTF-8 binary order, so the first one past the range ends the listing.
    const inRange = (page.Contents ?? []).flatMap(({ Key }) => (Key === undefined ? [] : [Key]));
    const past = inRange.findIndex((key) => key >= endBefore);
    keys.push(...(past === -1 ? inRange : inRange.slice(0, past)));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
    more = past === -1 && token !== undefined;
    if (more) onListed(keys.length);
  }
  const calls: ArchiveEntry[] = [];
  let unreadableLines = 0;
  const from = window.from.getTime();
  const to = window.to.getTime();
  for (const [index, key] of keys.entries()) {
    const text = await call(async (abortSignal) => {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
        abortSignal,
      });
      return (await object.Body?.transformToString('utf8')) ?? '';
    });
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const record = parseRecord(line);
      if (record === undefined) {
        unreadableLines++;
        continue;
      }
      const at = Date.parse(record.received_at);
      if (at >= from && at < to) calls.push({ key, record });
    }
    onObject(index + 1, keys.length);
  }
  // Array.prototype.sort is stable: records received in the same millisecond keep their order.
  calls.sort((a, b) => Date.parse(a.record.received_at) - Date.parse(b.record.received_at));
  return { calls, unreadableLines };
}

function parseRecord(line: string): ArchiveRecord | undefined {
  try {
    const parsed = v.safeParse(ArchiveRecordSchema, JSON.parse(line));
    return parsed.success ? (parsed.output as ArchiveRecord) : undefined;
  } catch {
    return undefined;
  }
}
