/**
 * One archive record as the inspector page shows it: the row of the list and the detail, in the
 * local inspector's shapes (`DeliverySummary`, `DeliveryDetail`) plus what only the archive
 * knows (the dedup key, the object, whether it can be replayed).
 * @module
 */
import { createHash } from 'node:crypto';
import type { ArchiveEntry } from '../../devkit/archive-reader.js';
import { replayability } from '../../devkit/replay-core.js';
import { parseSignatureHeader } from '../../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../../lambda/core/signature-header.js';
import type { ArchiveRecord } from '../../lambda/receiver/archive-record.js';
import {
  type DeliveryDetail,
  type DeliverySummary,
  type DiagnosisFields,
  decodeUtf8,
  isRecord,
  parseObject,
  stringField,
} from '../inspector/delivery.js';
import { MAX_KEPT_BODY_BYTES } from '../inspector/limits.js';

/** A row of the console's list: the local inspector's, and the archive's own fields. */
export interface ArchiveSummary extends DeliverySummary {
  /** The endpoint's name with several endpoints, `''` for the single one. */
  readonly endpointName: string;
  /** The queued message's dedup key. */
  readonly dedupKey?: string;
  /** Whether a replay can send it (a verified delivery whose whole body is archived). */
  readonly replayable: boolean;
}

/** The detail of an archived delivery. */
export interface ArchiveDetail extends ArchiveSummary, Omit<DeliveryDetail, keyof DeliverySummary> {
  /** Why it cannot be replayed, when it cannot. */
  readonly notReplayable?: string;
  /** The message attributes the receiver queued it with. */
  readonly queuedAttributes?: Readonly<Record<string, string>>;
}

/** The path an endpoint's calls are sent to, as the local inspector lists it. */
function endpointPath(record: ArchiveRecord): string {
  return record.endpoint === undefined ? '/webhook' : `/webhook/${record.endpoint}`;
}

/** The first value of an archived header (lower-case name), if any. */
function headerValue(record: ArchiveRecord, name: string): string | undefined {
  const value = record.headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

/**
 * The row of an archived call: verdict from the record, event and booking id from the queued
 * attributes or a body up to 64 KiB, the skew from the signature header.
 *
 * @param record - an archive record carrying a request id
 * @param id - its request id
 */
export function archiveSummary(record: ArchiveRecord, id: string): ArchiveSummary {
  const body =
    record.body_bytes <= MAX_KEPT_BODY_BYTES && !record.body_truncated
      ? parseObject(Buffer.from(record.body_base64, 'base64').toString('utf8'))
      : undefined;
  const data = body?.data;
  const eventType = record.message?.attributes.event ?? stringField(body, 'event');
  const bookingId = isRecord(data) ? stringField(data, 'id') : undefined;
  const parsed = parseSignatureHeader(headerValue(record, SIGNATURE_HEADER_KEY));
  const receivedAt = Date.parse(record.received_at);
  const dedupKey = record.dedup_key ?? record.message?.deduplication_id;
  return {
    id,
    receivedAt: record.received_at,
    endpoint: endpointPath(record),
    endpointName: record.endpoint ?? '',
    method: 'POST',
    status: record.status,
    reason: record.reason ?? record.verdict,
    ...(eventType === undefined ? {} : { eventType }),
    ...(bookingId === undefined ? {} : { bookingId }),
    ...(parsed.ok ? { skewSeconds: Math.floor(receivedAt / 1000) - parsed.header.timestamp } : {}),
    bodyBytes: record.body_bytes,
    ...(dedupKey === undefined ? {} : { dedupKey }),
    replayable: replayability(record).ok,
  };
}

/**
 * The detail of an archived call: its headers as archived, its exact body (text, or base64 when
 * it is not UTF-8), what was kept of a rejected one, and the diagnosis given.
 *
 * @param entry - the record and its object
 * @param id - its request id
 * @param bucket - the archive bucket, for the object's address
 * @param diagnosis - a 401's diagnosis, or why there is none
 */
export function archiveDetail(
  entry: ArchiveEntry,
  id: string,
  bucket: string,
  diagnosis: DiagnosisFields = {},
): ArchiveDetail {
  const { record, key } = entry;
  const bytes = Buffer.from(record.body_base64, 'base64');
  const text = decodeUtf8(bytes);
  const check = replayability(record);
  const headers = Object.entries(record.headers).flatMap(([name, value]) =>
    (typeof value === 'string' ? [value] : value).map((one) => [name, one] as const),
  );
  return {
    ...archiveSummary(record, id),
    headers,
    body: text ?? bytes.toString('base64'),
    bodyEncoding: text === undefined ? 'base64' : 'utf8',
    bodyTruncated: record.body_truncated === true,
    ...(record.body_truncated
      ? {}
      : { bodySha256: createHash('sha256').update(bytes).digest('hex') }),
    sourceIp: record.source_ip ?? '',
    response: `(the receiver's answer is not archived: it answered ${record.status} ${record.reason ?? record.verdict})`,
    ...diagnosis,
    archive: { key, url: `s3://${bucket}/${key}` },
    ...(check.ok ? {} : { notReplayable: check.message }),
    ...(record.message === undefined ? {} : { queuedAttributes: record.message.attributes }),
  };
}
