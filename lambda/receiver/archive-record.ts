import { ARCHIVE_LIMITS } from '../contract/archive-layout.js';
import { SIGNATURE_HEADER_KEY } from '../core/signature-header.js';
import type { ReceiveOutcome, ReceiveRequest } from './decision/receive.js';
import type { SinkMessage } from './decision/sink-message.js';

/**
 * The archive of deliveries: what one record holds and how the receiver writes it. Dependency-free,
 * so the replay tool and the local stand-in read records without the SDK; where records land and
 * the archive's bounds are the contract's (`lambda/contract/archive-layout.ts`).
 * @module
 */

/**
 * What Firehose takes in one call (its API reference: PutRecordBatch; these cannot be changed).
 * The local stand-in refuses what Firehose would, so a record too large for the deployed archive
 * fails in `npm start` too.
 */
export const FIREHOSE_LIMITS = {
  /** Largest record, before base64 (1,000 KiB). */
  recordBytes: 1_024_000,
  /** Most records in one PutRecordBatch. */
  batchRecords: 500,
  /** Largest PutRecordBatch, its records together before base64. */
  batchBytes: 4 * 1024 * 1024,
} as const;

/** The request headers an archive record keeps (lower case), as the receiver saw them. */
export const ARCHIVED_HEADERS = [SIGNATURE_HEADER_KEY, 'content-type', 'user-agent'] as const;

/** What the archive keeps of a queued message, so a replay sends it again unchanged. */
export interface ArchivedMessage {
  readonly attributes: Readonly<Record<string, string>>;
  readonly signature_timestamp: number;
  readonly deduplication_id: string;
  readonly group_id: string;
}

/** One archived call: one JSON line of an archive object. Holds personal data: never log it. */
export interface ArchiveRecord {
  /** Format version of this record. */
  readonly v: 1;
  /** When the receiver got the call, ISO 8601 (UTC, milliseconds). */
  readonly received_at: string;
  readonly api_request_id?: string;
  /** The endpoint called, when the receiver serves several. */
  readonly endpoint?: string;
  readonly verdict: 'queued' | 'ignored' | 'rejected';
  readonly status: number;
  /** Why a call was rejected. */
  readonly reason?: string;
  /** The {@link ARCHIVED_HEADERS} the call carried (every copy of a repeated one). */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly source_ip?: string;
  /** The body's bytes, base64: exactly as received (a rejected call's first 4 KiB). */
  readonly body_base64: string;
  /** The whole body's length in bytes. */
  readonly body_bytes: number;
  /**
   * Set when only the start of the body is kept: a rejected call's, or a queued call's whose
   * record would be over Firehose's limit (see {@link archiveLine}).
   */
  readonly body_truncated?: true;
  /** The queued message's dedup key (`dedup_key` attribute, or FIFO deduplication id). */
  readonly dedup_key?: string;
  /** The message as queued; only for `queued`. */
  readonly message?: ArchivedMessage;
}

/** What the handler knows about a call, besides the request and decision, for its record. */
export interface ArchivedCall {
  readonly receivedAtMs: number;
  readonly apiRequestId: string | undefined;
  readonly sourceIp: string | undefined;
  /** The message sent to the queue, when one was. */
  readonly message: SinkMessage | undefined;
}

/**
 * The archive record of an answered call; `undefined` for a 503 (not acknowledged: the sender
 * retries, and the retry is archived). A rejected call keeps at most
 * {@link ARCHIVE_LIMITS}.rejectedBodyBytes of its body.
 *
 * @param request - the call
 * @param outcome - the receiver's decision
 * @param call - receipt time, request id, source address, queued message
 */
export function archiveRecord(
  request: ReceiveRequest,
  outcome: ReceiveOutcome,
  call: ArchivedCall,
): ArchiveRecord | undefined {
  if (outcome.kind === 'unavailable') return undefined;
  const body = bodyBytes(request.body);
  const kept =
    outcome.kind === 'rejected' ? body.subarray(0, ARCHIVE_LIMITS.rejectedBodyBytes) : body;
  const headers: Record<string, string | readonly string[]> = {};
  for (const name of ARCHIVED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const { message } = call;
  return {
    v: 1,
    received_at: new Date(call.receivedAtMs).toISOString(),
    ...(call.apiRequestId === undefined ? {} : { api_request_id: call.apiRequestId }),
    ...(request.endpoint === undefined ? {} : { endpoint: request.endpoint }),
    verdict: outcome.kind,
    status: outcome.status,
    ...(outcome.kind === 'rejected' ? { reason: outcome.reason } : {}),
    headers,
    ...(call.sourceIp === undefined ? {} : { source_ip: call.sourceIp }),
    body_base64: kept.toString('base64'),
    body_bytes: body.byteLength,
    ...(kept.byteLength < body.byteLength ? { body_truncated: true } : {}),
    ...(outcome.details.dedupKey === undefined ? {} : { dedup_key: outcome.details.dedupKey }),
    ...(message === undefined || outcome.kind !== 'queued'
      ? {}
      : {
          message: {
            attributes: { ...message.attributes },
            signature_timestamp: message.signatureTimestamp,
            deduplication_id: message.deduplicationId,
            group_id: message.groupId,
          },
        }),
  };
}

/**
 * The record as Firehose takes it: one JSON line of at most {@link FIREHOSE_LIMITS}.recordBytes.
 * A queued body near `MAX_BODY_BYTES`' maximum whose `event` and `source` hold most of its text
 * makes a longer record (the body as base64, and that text again in the message's attributes),
 * which Firehose would refuse whole; such a record keeps only as much of its body as fits and
 * says so with `body_truncated`, as a rejected call's does. The call stays on record (verdict,
 * dedup key, attributes); the replay reports it instead of re-sending a cut body.
 *
 * @param record - an archive record
 */
export function archiveLine(record: ArchiveRecord): Buffer {
  const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
  if (line.byteLength <= FIREHOSE_LIMITS.recordBytes) return line;
  const cut = { ...record, body_base64: '', body_truncated: true } as const;
  const room = FIREHOSE_LIMITS.recordBytes - Buffer.byteLength(`${JSON.stringify(cut)}\n`);
  // Whole base64 quanta: every 4 characters of room hold 3 bytes of the body.
  const kept = Buffer.from(record.body_base64, 'base64').subarray(
    0,
    Math.max(0, Math.floor(room / 4) * 3),
  );
  return Buffer.from(
    `${JSON.stringify({ ...cut, body_base64: kept.toString('base64') })}\n`,
    'utf8',
  );
}

/** The body's bytes: a text body stands for its UTF-8 bytes (as the verifier hashes it). */
function bodyBytes(body: string | Uint8Array | undefined): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * The queued message a record describes, as the receiver sent it; `undefined` for a record of a
 * call that queued nothing (ignored or rejected). The body is the archived bytes as text, which
 * is what the receiver queued (a queued body is valid UTF-8).
 *
 * @param record - an archive record
 */
export function archivedMessage(record: ArchiveRecord): SinkMessage | undefined {
  const { message } = record;
  if (record.verdict !== 'queued' || message === undefined || record.body_truncated) {
    return undefined;
  }
  return {
    body: Buffer.from(record.body_base64, 'base64').toString('utf8'),
    attributes: message.attributes as SinkMessage['attributes'],
    signatureTimestamp: message.signature_timestamp,
    deduplicationId: message.deduplication_id,
    groupId: message.group_id,
  };
}

/**
 * At most {@link ARCHIVE_LIMITS}.rejectedPerMinute rejected calls archived per minute (a fixed
 * window per execution environment), so a flood of unauthenticated calls costs a bounded amount.
 */
export class RejectedArchiveQuota {
  private windowStart = Number.NEGATIVE_INFINITY;
  private taken = 0;

  constructor(private readonly perMinute: number = ARCHIVE_LIMITS.rejectedPerMinute) {}

  /** Whether one more rejected call may be archived now (and counts it when so). */
  take(nowMs: number): boolean {
    if (nowMs - this.windowStart >= 60_000) {
      this.windowStart = nowMs;
      this.taken = 0;
    }
    if (this.taken >= this.perMinute) return false;
    this.taken += 1;
    return true;
  }
}
