/**
 * The console's deliveries, read from the archive when asked: a window (the last hour by
 * default), filters, a search, newest first in pages; one delivery's detail with a 401's
 * diagnosis; replays of one delivery or of a selection, through the replay tool's own code.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  type ArchiveEntry,
  checkArchiveWindow,
  type TimeWindow,
  visitArchiveWindow,
} from '../../devkit/archive-reader.js';
import { diagnoseSignature } from '../../devkit/diagnose-signature.js';
import {
  type ReplayQueue,
  type ReplayReport,
  replayability,
  replayWindow,
  type SendOutcome,
  sendArchivedMessage,
} from '../../devkit/replay-core.js';
import type { SigningKey } from '../../devkit/signing-key.js';
import { UsageError } from '../../devkit/tool-io.js';
import type { VerifyFailureReason } from '../../lambda/core/index.js';
import { parseSignatureHeader } from '../../lambda/core/index.js';
import { SIGNATURE_HEADER_KEY } from '../../lambda/core/signature-header.js';
import type { ArchiveRecord } from '../../lambda/receiver/archive-record.js';
import type { DiagnosisFields } from '../inspector/delivery.js';
import {
  type ArchiveDetail,
  type ArchiveSummary,
  archiveDetail,
  archiveSummary,
} from './archive-delivery.js';

/** The window when none is asked for: the last hour. */
export const DEFAULT_WINDOW_MS = 3_600_000;

/** Rows in a page of the list unless `limit` asks for fewer, and the most it may ask for. */
export const PAGE_ROWS = { default: 100, max: 500 } as const;

/** Least milliseconds between two replayed sends, a selection's or single ones: at most 10 a second. */
export const SELECTION_SEND_INTERVAL_MS = 100;

/** What the list and a selection replay are asked for. */
export interface DeliveryQuery {
  readonly window: TimeWindow;
  readonly endpoint?: string;
  /** A status (`401`) or a class (`4`). */
  readonly status?: string;
  readonly reason?: string;
  readonly event?: string;
  /** A request id or dedup key, or part of one. */
  readonly search?: string;
  readonly offset: number;
  readonly limit: number;
}

/** The query of a list or replay request (`from`, `to`, `endpoint`, `status`, `reason`, …). */
export function parseQuery(params: URLSearchParams, now = Date.now()): DeliveryQuery {
  const time = (name: string, fallback: number): Date => {
    const text = params.get(name);
    if (text === null || text === '') return new Date(fallback);
    const at = new Date(text);
    if (Number.isNaN(at.getTime())) throw new UsageError(`${name} must be an ISO 8601 time`);
    return at;
  };
  const to = time('to', now);
  const from = time('from', to.getTime() - DEFAULT_WINDOW_MS);
  if (to <= from) throw new UsageError('to must be after from');
  checkArchiveWindow({ from, to });
  const whole = (name: string, fallback: number, max: number): number => {
    const text = params.get(name);
    if (text === null || text === '') return fallback;
    if (!/^\d{1,9}$/.test(text)) throw new UsageError(`${name} must be a whole number`);
    return Math.min(Number(text), max);
  };
  const optional = (name: string) => {
    const value = params.get(name)?.trim();
    return value === undefined || value === '' ? {} : { [name]: value };
  };
  const search = params.get('q')?.trim();
  return {
    window: { from, to },
    ...optional('endpoint'),
    ...optional('status'),
    ...optional('reason'),
    ...optional('event'),
    ...(search === undefined || search === '' ? {} : { search }),
    offset: whole('offset', 0, Number.MAX_SAFE_INTEGER),
    limit: Math.max(1, whole('limit', PAGE_ROWS.default, PAGE_ROWS.max)),
  };
}

/** Whether a row matches the query's filters and search. */
function matches(row: ArchiveSummary, query: DeliveryQuery): boolean {
  if (query.endpoint !== undefined && row.endpointName !== query.endpoint) return false;
  if (query.status !== undefined && !String(row.status).startsWith(query.status)) return false;
  if (query.reason !== undefined && row.reason !== query.reason) return false;
  if (query.event !== undefined && row.eventType !== query.event) return false;
  const { search } = query;
  return search === undefined || row.id.includes(search) || (row.dedupKey ?? '').includes(search);
}

/** A page of the list and what reading the window found. */
export interface DeliveryPage {
  readonly deliveries: readonly ArchiveSummary[];
  /** Deliveries matching in the whole window. */
  readonly matched: number;
  /** The offset of the next page, when there is one. */
  readonly nextOffset?: number;
  readonly window: { readonly from: string; readonly to: string };
  /** Archive objects read, lines that are not records, objects that held such lines. */
  readonly archive: {
    readonly objects: number;
    readonly malformedLines: number;
    readonly malformedObjects: number;
  };
}

/** How the console finds a key for a 401's diagnosis: the key, or why there is none. */
export type KeyFinder = (
  endpointName: string,
) => Promise<SigningKey | { readonly unavailable: string }>;

/** The archive of one receiver, and the queue its replays go to. */
export interface ArchiveSourceOptions {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly queue: ReplayQueue;
  readonly keyOf: KeyFinder;
  /** Keys per listing page (S3's 1,000 by default; tests ask for fewer). */
  readonly pageSize?: number;
}

/** A delivery looked up by id: found, or not in the window read. */
type Found = { readonly entry: ArchiveEntry } | undefined;

/** The console's deliveries over one archive. */
export class ArchiveSource {
  readonly #options: ArchiveSourceOptions;
  /** When the last single replay was sent: single replays keep the selection's rate too. */
  #lastSend = Number.NEGATIVE_INFINITY;

  constructor(options: ArchiveSourceOptions) {
    this.#options = options;
  }

  /** The window's deliveries matching the query, newest first, one page of them. */
  async list(query: DeliveryQuery): Promise<DeliveryPage> {
    const rows: ArchiveSummary[] = [];
    const seen = new Set<string>();
    const visit = await this.#visit(query.window, ({ record }) => {
      const id = record.api_request_id;
      // A record archived twice (a retried write) is one delivery.
      if (id === undefined || seen.has(id)) return;
      seen.add(id);
      const row = archiveSummary(record, id);
      if (matches(row, query)) rows.push(row);
    });
    rows.reverse();
    const end = query.offset + query.limit;
    return {
      deliveries: rows.slice(query.offset, end),
      matched: rows.length,
      ...(end < rows.length ? { nextOffset: end } : {}),
      window: { from: query.window.from.toISOString(), to: query.window.to.toISOString() },
      archive: {
        objects: visit.objects,
        malformedLines: visit.unreadableLines,
        malformedObjects: visit.malformedObjects,
      },
    };
  }

  /** One delivery's detail, a 401 diagnosed; `undefined` when it is not in the window. */
  async detail(id: string, window: TimeWindow): Promise<ArchiveDetail | undefined> {
    const found = await this.#find(id, window);
    if (found === undefined) return undefined;
    const diagnosis = await this.#diagnose(found.entry.record);
    return archiveDetail(found.entry, id, this.#options.bucket, diagnosis);
  }

  /**
   * Sends one delivery's archived message into the queue.
   *
   * @returns `undefined` when it is not in the window; why it cannot be replayed; or what the
   *   queue did with it
   */
  async replay(
    id: string,
    window: TimeWindow,
  ): Promise<undefined | { readonly notReplayable: string } | SendOutcome> {
    const found = await this.#find(id, window);
    if (found === undefined) return undefined;
    const check = replayability(found.entry.record);
    if (!check.ok) return { notReplayable: check.message };
    const wait = this.#lastSend + SELECTION_SEND_INTERVAL_MS - Date.now();
    this.#lastSend = Date.now() + Math.max(0, wait);
    if (wait > 0) await sleep(wait);
    return sendArchivedMessage(this.#options.queue, check.message);
  }

  /** Replays the window's replayable deliveries matching the query, at a bounded rate. */
  replaySelection(query: DeliveryQuery): Promise<ReplayReport> {
    const seen = new Set<string>();
    return replayWindow({
      s3: this.#options.s3,
      bucket: this.#options.bucket,
      window: query.window,
      queue: this.#options.queue,
      sendIntervalMs: SELECTION_SEND_INTERVAL_MS,
      select: (record) => {
        const id = record.api_request_id;
        if (id === undefined || seen.has(id)) return false;
        seen.add(id);
        return matches(archiveSummary(record, id), query);
      },
      archive: this.#archiveOptions(),
    });
  }

  #archiveOptions() {
    const { pageSize, queue } = this.#options;
    return {
      timeoutMs: queue.timeoutMs,
      ...(pageSize === undefined ? {} : { pageSize }),
    };
  }

  #visit(window: TimeWindow, onEntry: (entry: ArchiveEntry) => void) {
    return visitArchiveWindow(
      this.#options.s3,
      this.#options.bucket,
      window,
      onEntry,
      this.#archiveOptions(),
    );
  }

  /** The first record of `id` in the window. */
  async #find(id: string, window: TimeWindow): Promise<Found> {
    let found: Found;
    await this.#visit(window, (entry) => {
      if (found === undefined && entry.record.api_request_id === id) found = { entry };
    });
    return found;
  }

  /** A 401's diagnosis, as the local inspector gives it, when the key can be read. */
  async #diagnose(record: ArchiveRecord): Promise<DiagnosisFields> {
    if (record.status !== 401 || record.reason === undefined) return {};
    if (record.body_truncated) {
      return {
        noDiagnosis: `only the first ${Buffer.from(record.body_base64, 'base64').byteLength} bytes of this rejected call's ${record.body_bytes}-byte body are archived, and the signature covers all of it: run npm run verify on the exact bytes`,
      };
    }
    const key = await this.#options.keyOf(record.endpoint ?? '');
    if ('unavailable' in key) return { noDiagnosis: key.unavailable };
    const header = record.headers[SIGNATURE_HEADER_KEY];
    const text = typeof header === 'string' ? header : (header?.[0] ?? '');
    const parsed = parseSignatureHeader(text);
    const diagnosis = diagnoseSignature({
      header: text,
      body: Buffer.from(record.body_base64, 'base64'),
      key,
      now: Math.floor(Date.parse(record.received_at) / 1000),
      reason: record.reason as VerifyFailureReason,
      timestamp: parsed.ok ? parsed.header.timestamp : undefined,
    });
    return diagnosis.ok ? { diagnosis: diagnosis.hints } : { noDiagnosis: diagnosis.why };
  }
}
