/**
 * The archive of deliveries as the construct, the receiver, `npm start` and the replay share it:
 * where records land in the bucket, how long they are kept, and the bounds that keep the archive
 * cheap and off the sender's path. Pure: no AWS, no I/O.
 * @module
 */

/**
 * How the archive lays out its objects. Firehose writes each buffer to
 * `deliveries/yyyy/MM/dd/HH/` (UTC, the arrival hour of the buffer's oldest record), so a time
 * window is a listing of a few hour prefixes.
 */
export const ARCHIVE_LAYOUT = {
  /** Prefix of the delivered objects, before the hour path. */
  deliveriesPrefix: 'deliveries/',
  /**
   * Error prefix, which Firehose requires beside a dated prefix. It writes there only records it
   * could not process (a transformation or a format conversion, which this stream has none of),
   * so nothing lands there; a record it cannot write to the bucket is retried, then dropped.
   */
  errorsPrefix: 'errors/',
  /**
   * Longest time Firehose buffers records before it writes an object (its maximum for S3):
   * an object's hour prefix may be up to this much earlier than its newest record, so the replay
   * looks back this far.
   */
  bufferSeconds: 300,
  /** Buffer size that also triggers a write. */
  bufferMegabytes: 5,
} as const;

/**
 * The longest `archiveDays` the construct takes: ten years, leap days included. Above any need to
 * replay or audit deliveries we know of, and a bound that lets `npm run replay` refuse a window
 * no archive can hold instead of listing it one hour prefix at a time.
 */
export const MAX_ARCHIVE_DAYS = 3653;

/** Default of `archiveDays`: how long archived calls are kept. */
export const DEFAULT_ARCHIVE_DAYS = 30;

/** The bounds the archive keeps (documented in the README and docs/operations.md). */
export const ARCHIVE_LIMITS = {
  /**
   * Longest a call waits for its archive write, SDK retries included: a write that takes longer
   * is abandoned and counted as failed, and the answer (already decided) goes out.
   */
  writeBoundMs: 500,
  /** Bytes of a rejected call's body kept: enough to see what was sent, too few to run up a bill. */
  rejectedBodyBytes: 4096,
  /** Rejected calls archived per minute per warm execution environment; the rest are not kept. */
  rejectedPerMinute: 10,
} as const;

/** The hour path of an instant under the deliveries prefix, `deliveries/YYYY/MM/DD/HH/` in UTC. */
export function archiveHourPrefix(at: Date): string {
  const iso = at.toISOString();
  return `${ARCHIVE_LAYOUT.deliveriesPrefix}${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(11, 13)}/`;
}
