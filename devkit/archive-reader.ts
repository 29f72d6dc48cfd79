import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import * as v from 'valibot';
import {
  ARCHIVE_LAYOUT,
  archiveHourPrefix,
  MAX_ARCHIVE_DAYS,
} from '../lambda/contract/archive-layout.js';
import { RECEIVER_TIMEOUT_SECONDS } from '../lambda/contract/settings.js';
import type { ArchiveRecord } from '../lambda/receiver/archive-record.js';
import { NETWORK_TIMEOUT_MS, withTimeout } from './network.js';
import { UsageError } from './tool-io.js';

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

/** Options of {@link visitArchiveWindow} and {@link readArchiveWindow}. */
export interface ReadArchiveOptions {
  /** Called after each page of the listing that more pages follow, with the keys listed so far. */
  readonly onListed?: (listed: number) => void;
  /** Called after each object read, with how many were read of how many listed. */
  readonly onObject?: (read: number, listed: number) => void;
  /** How long one S3 call may take (the tools' {@link NETWORK_TIMEOUT_MS} by default). */
  readonly timeoutMs?: number;
  /** Added to the message when nothing listens at the archive's address. */
  readonly refusedHint?: string;
  /** Keys asked for per listing page (S3's largest, 1,000, by default; tests ask for fewer). */
  readonly pageSize?: number;
}

/** What {@link visitArchiveWindow} read besides the records it handed over. */
export interface ArchiveVisit {
  /** Objects read. */
  readonly objects: number;
  /** Lines that are not records of this receiver (not JSON, or not the record's shape). */
  readonly unreadableLines: number;
  /** Objects that held at least one such line. */
  readonly malformedObjects: number;
}

/**
 * Hands every record received in `window` to `onEntry`, oldest first (a tie keeps the archive's
 * order), holding only the objects whose records may still come first, not the window: objects
 * are read in key order, which is the order of their oldest record's arrival at the stream
 * ({@link objectStart}), and a record is handed over once every object that could hold an older
 * one has been read. A window of any length thus costs the memory of its keys and of the few
 * objects written at about the same time (each at most Firehose's buffer), one record handed
 * over at a time. `onEntry` is awaited before the next record.
 *
 * @param s3 - client of the bucket's region (or of the local archive)
 * @param bucket - the archive bucket
 * @param window - the window
 * @param onEntry - called with each record of the window
 * @param options - progress callbacks, timeout, hint and page size
 * @throws {UsageError} when the window is longer than any archive holds ({@link checkArchiveWindow})
 * @throws {NetworkError} when an S3 call gets no answer in time or its connection fails
 */
export async function visitArchiveWindow(
  s3: S3Client,
  bucket: string,
  window: TimeWindow,
  onEntry: (entry: ArchiveEntry) => void | Promise<void>,
  options: ReadArchiveOptions = {},
): Promise<ArchiveVisit> {
  const { onObject = () => {}, timeoutMs = NETWORK_TIMEOUT_MS, refusedHint } = options;
  const call = <T>(send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> =>
    withTimeout(`Could not read the archive ${bucket}`, timeoutMs, send, {
      ...(refusedHint === undefined ? {} : { refusedHint }),
    });
  const keys = await listWindowKeys(s3, bucket, window, call, options);
  let unreadableLines = 0;
  let malformedObjects = 0;
  const from = window.from.getTime();
  const to = window.to.getTime();
  /** Records of the objects read, not yet handed over, oldest first. */
  let waiting: Timed[] = [];
  let next = 0;
  const readNext = async (): Promise<void> => {
    const key = keys[next] ?? '';
    next++;
    const bytes = await readObject(s3, bucket, key, call);
    const read: Timed[] = [];
    let unreadable = 0;
    for (const line of lines(bytes)) {
      const record = parseArchiveLine(line);
      if (record === undefined) {
        unreadable++;
        continue;
      }
      const at = Date.parse(record.received_at);
      if (at >= from && at < to) read.push({ at, entry: { key, record } });
    }
    unreadableLines += unreadable;
    if (unreadable > 0) malformedObjects++;
    onObject(next, keys.length);
    waiting = mergeByTime(waiting, read);
  };
  while (next < keys.length || waiting.length > 0) {
    const oldest = waiting[0];
    // An object not read yet may hold a record older than the oldest waiting: read it first.
    if (
      next < keys.length &&
      (oldest === undefined || objectStart(keys[next] ?? '') <= oldest.at)
    ) {
      await readNext();
      continue;
    }
    waiting.shift();
    if (oldest !== undefined) await onEntry(oldest.entry);
  }
  return { objects: keys.length, unreadableLines, malformedObjects };
}

/** A record and its receipt time, epoch milliseconds. */
interface Timed {
  readonly at: number;
  readonly entry: ArchiveEntry;
}

/** Two lists oldest first as one, `a`'s record first at a tie; sorts `b` (one object's) first. */
function mergeByTime(a: readonly Timed[], b: Timed[]): Timed[] {
  // Array.prototype.sort is stable: records received in the same millisecond keep their order.
  b.sort((x, y) => x.at - y.at);
  const merged: Timed[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x.at <= y.at)) {
      if (x !== undefined) merged.push(x);
      i++;
    } else {
      merged.push(y);
      j++;
    }
  }
  return merged;
}

/**
 * The earliest receipt time a record of the object at `key` can have: Firehose names an object
 * `<stream>-<version>-yyyy-MM-dd-HH-mm-ss-<uuid>` by the arrival of its oldest record (so does
 * the local stand-in), and a record arrives up to the receiver's timeout (and a second) after its
 * receipt. A name without that time falls back on its hour prefix, minus the same.
 *
 * @param key - an archive object's key
 */
export function objectStart(key: string): number {
  const slack = RECEIVER_TIMEOUT_SECONDS * 1000 + 1000;
  const named = /-(\d{4})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-(\d{2})-[^/]*$/.exec(key);
  if (named !== null) {
    const [, year, month, day, hour, minute, second] = named;
    const at = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
    if (!Number.isNaN(at)) return at - slack;
  }
  const hour = /^[^/]+\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{2})\//.exec(key);
  const at =
    hour === null ? Number.NaN : Date.parse(`${hour[1]}-${hour[2]}-${hour[3]}T${hour[4]}:00:00Z`);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at - slack;
}

/**
 * The records received in `window`, oldest first (a tie keeps the archive's order), as
 * {@link visitArchiveWindow} hands them over. Holds the whole window: for a window of any length,
 * visit it.
 *
 * @param s3 - client of the bucket's region (or of the local archive)
 * @param bucket - the archive bucket
 * @param window - the window
 * @param options - progress callbacks, timeout and hint
 * @throws as {@link visitArchiveWindow}
 */
export async function readArchiveWindow(
  s3: S3Client,
  bucket: string,
  window: TimeWindow,
  options: ReadArchiveOptions = {},
): Promise<ArchiveWindow> {
  const calls: ArchiveEntry[] = [];
  const { unreadableLines } = await visitArchiveWindow(
    s3,
    bucket,
    window,
    (entry) => {
      calls.push(entry);
    },
    options,
  );
  return { calls, unreadableLines };
}

/** One S3 call within the tools' timeout, its failures as `withTimeout` words them. */
type ArchiveCall = <T>(send: (abortSignal: AbortSignal) => Promise<T>) => Promise<T>;

/** The keys of the window's objects, in key order: one range, listed page by page. */
async function listWindowKeys(
  s3: S3Client,
  bucket: string,
  window: TimeWindow,
  call: ArchiveCall,
  options: ReadArchiveOptions,
): Promise<string[]> {
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
          ...(options.pageSize === undefined ? {} : { MaxKeys: options.pageSize }),
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
    if (more) options.onListed?.(keys.length);
  }
  return keys;
}

/** One archive object's bytes. */
async function readObject(
  s3: S3Client,
  bucket: string,
  key: string,
  call: ArchiveCall,
): Promise<Buffer> {
  return call(async (abortSignal) => {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }), {
      abortSignal,
    });
    return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
  });
}

/** The non-blank lines of an object, one at a time, each decoded only when reached. */
function* lines(bytes: Buffer): Generator<string> {
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.toString('utf8', start, end);
    if (line.trim() !== '') yield line;
    start = end + 1;
  }
}

/**
 * One archive line as a record of this receiver, or `undefined` when it is not one (not JSON,
 * or not the shape the replay relies on).
 *
 * @param line - one line of an archive object
 */
export function parseArchiveLine(line: string): ArchiveRecord | undefined {
  try {
    const parsed = v.safeParse(ArchiveRecordSchema, JSON.parse(line));
    return parsed.success ? (parsed.output as ArchiveRecord) : undefined;
  } catch {
    return undefined;
  }
}
