/**
 * The replay of archived deliveries, shared by `npm run replay` and the operator's console
 * (`npm run inspect`): which records may be sent again, how one is sent (the message the receiver
 * queued, with its original attributes, straight into the queue) and how a window is replayed,
 * record by record, reporting and skipping what the queue refuses.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { type ArchiveRecord, archivedMessage } from '../lambda/receiver/archive-record.js';
import type { SinkMessage } from '../lambda/receiver/decision/sink-message.js';
import { sendMessageInput } from '../lambda/receiver/forward-to-queue.js';
import {
  type ArchiveEntry,
  type ReadArchiveOptions,
  type TimeWindow,
  visitArchiveWindow,
} from './archive-reader.js';
import { withTimeout } from './network.js';
import { terminalSafe } from './terminal-text.js';

/** The queue a replay sends to. */
export interface ReplayQueue {
  readonly client: SQSClient;
  readonly url: string;
  /** How long one send may take. */
  readonly timeoutMs: number;
  /** Added to the message when nothing listens at the queue's address. */
  readonly refusedHint?: string;
}

/** Whether a record can be replayed: its message, or why not. */
export type Replayability =
  | { readonly ok: true; readonly message: SinkMessage }
  | {
      readonly ok: false;
      /** `not_verified`: ignored or rejected, never queued; `body_truncated`: only its start kept. */
      readonly why: 'not_verified' | 'body_truncated';
      readonly message: string;
    };

/** Why a record that is not a verified delivery is not replayed. */
export const NOT_VERIFIED =
  'only verified deliveries that were queued are replayed; this call was ignored or rejected';

/** Why a queued record whose body was cut short is not replayed. */
export const BODY_CUT =
  "the archived body is cut short (a rejected call's is kept to 4 KiB, a record over Firehose's limit keeps only the start of its body): not replayable";

/**
 * Whether `record` can be sent again, and the message it becomes.
 *
 * @param record - an archive record
 */
export function replayability(record: ArchiveRecord): Replayability {
  if (record.body_truncated) return { ok: false, why: 'body_truncated', message: BODY_CUT };
  const message = archivedMessage(record);
  return message === undefined
    ? { ok: false, why: 'not_verified', message: NOT_VERIFIED }
    : { ok: true, message };
}

/**
 * The SQS errors by which the queue refuses one message for what it holds (too large, too many
 * or invalid attributes, characters it does not take, a bad group or deduplication id): another
 * message may still go. Any other failure (no such queue, access denied, throttling, the
 * network) would refuse the next message too, and stops a replay.
 */
const MESSAGE_REFUSALS = new Set([
  'InvalidParameterValue',
  'InvalidParameterValueException',
  'InvalidMessageContents',
  'InvalidAttributeName',
  'InvalidAttributeValue',
  'TooManyAttributes',
]);

/** Longest reason quoted from the queue's refusal. */
const MAX_REASON_CHARS = 300;

/** What sending one record did: sent, or the queue's reason for refusing it. */
export type SendOutcome =
  | { readonly sent: true }
  | { readonly sent: false; readonly reason: string };

/**
 * Sends one archived message into the queue, as the receiver sent it.
 *
 * @param queue - where to
 * @param message - from {@link replayability}
 * @returns the queue's refusal of this message, if it refused it
 * @throws {NetworkError} when the queue cannot be reached in time; the SDK's error for any other
 *   refusal (one the next message would meet too)
 */
export async function sendArchivedMessage(
  queue: ReplayQueue,
  message: SinkMessage,
): Promise<SendOutcome> {
  const fifo = queue.url.endsWith('.fifo');
  try {
    await withTimeout(
      `Could not send to ${queue.url}`,
      queue.timeoutMs,
      (abortSignal) =>
        queue.client.send(new SendMessageCommand(sendMessageInput(queue.url, fifo, message)), {
          abortSignal,
        }),
      queue.refusedHint === undefined ? {} : { refusedHint: queue.refusedHint },
    );
    return { sent: true };
  } catch (error) {
    const { name, message: text } = error as Error;
    if (!MESSAGE_REFUSALS.has(name)) throw error;
    // SQS's reason names sizes and attributes, never the body; cut and escaped all the same.
    return { sent: false, reason: terminalSafe(`${name}: ${text}`.slice(0, MAX_REASON_CHARS)) };
  }
}

/** One record the queue refused: where it is and why, never its body. */
export interface Refusal {
  /** The archive object holding it. */
  readonly key: string;
  /** The request id its record carries. */
  readonly requestId?: string;
  readonly reason: string;
}

/** What a window's replay did. */
export interface ReplayReport {
  /** Replayable deliveries found (sent, refused, or listed by a dry run). */
  readonly total: number;
  readonly sent: number;
  /** The records the queue refused, the first {@link MAX_LISTED_REFUSALS} of them. */
  readonly refusals: readonly Refusal[];
  /** How many the queue refused in all. */
  readonly refused: number;
  /** Queued records skipped because their archived body is cut short. */
  readonly cut: number;
  readonly unreadableLines: number;
}

/** Refusals a report keeps (the count goes on): each is printed as it happens. */
export const MAX_LISTED_REFUSALS = 100;

/** How a window is replayed. */
export interface ReplayWindowOptions {
  readonly s3: S3Client;
  readonly bucket: string;
  readonly window: TimeWindow;
  readonly queue: ReplayQueue;
  /** Which records of the window to consider (all by default). */
  readonly select?: (record: ArchiveRecord) => boolean;
  /** List instead of send: {@link ReplayWindowHooks.onDelivery} sees each, nothing is sent. */
  readonly dryRun?: boolean;
  /** Least milliseconds between two sends (none by default): the console's bounded rate. */
  readonly sendIntervalMs?: number;
  /** Reading the archive: progress, timeout, hint. */
  readonly archive?: ReadArchiveOptions;
}

/** What a window's replay tells as it goes. */
export interface ReplayWindowHooks {
  /** A replayable delivery reached (before it is sent). */
  readonly onDelivery?: (entry: ArchiveEntry) => void;
  /** A record the queue refused. */
  readonly onRefused?: (refusal: Refusal) => void;
  /** A delivery sent, with how many were sent so far. */
  readonly onSent?: (sent: number) => void;
}

/**
 * Replays the replayable deliveries of a window, in the archive's order, one record in memory at
 * a time: a record the queue refuses is reported and skipped, the others are sent.
 *
 * @throws {ReplayStopped} when a send fails for another reason than the message (see
 *   {@link sendArchivedMessage}), carrying what was done until then
 * @throws as `visitArchiveWindow` when the archive cannot be read
 */
export async function replayWindow(
  options: ReplayWindowOptions,
  hooks: ReplayWindowHooks = {},
): Promise<ReplayReport> {
  const { select = () => true, dryRun = false, sendIntervalMs = 0 } = options;
  const report = { total: 0, sent: 0, refused: 0, cut: 0, refusals: [] as Refusal[] };
  let lastSend = Number.NEGATIVE_INFINITY;
  try {
    const { unreadableLines } = await visitArchiveWindow(
      options.s3,
      options.bucket,
      options.window,
      async (entry) => {
        const { record } = entry;
        if (!select(record)) return;
        const check = replayability(record);
        if (!check.ok) {
          if (check.why === 'body_truncated' && record.verdict === 'queued') report.cut++;
          return;
        }
        report.total++;
        hooks.onDelivery?.(entry);
        if (dryRun) return;
        const wait = lastSend + sendIntervalMs - Date.now();
        if (wait > 0) await sleep(wait);
        lastSend = Date.now();
        const outcome = await sendArchivedMessage(options.queue, check.message);
        if (outcome.sent) {
          report.sent++;
          hooks.onSent?.(report.sent);
          return;
        }
        const refusal = {
          key: entry.key,
          ...(record.api_request_id === undefined ? {} : { requestId: record.api_request_id }),
          reason: outcome.reason,
        };
        report.refused++;
        if (report.refusals.length < MAX_LISTED_REFUSALS) report.refusals.push(refusal);
        hooks.onRefused?.(refusal);
      },
      options.archive,
    );
    return { ...report, unreadableLines };
  } catch (error) {
    throw new ReplayStopped({ ...report, unreadableLines: 0 }, error);
  }
}

/** A replay that stopped on a failure: what it had done, and the failure (`cause`). */
export class ReplayStopped extends WebhookReceiverError {
  /** What the replay did before it stopped: `total` counts the deliveries reached so far. */
  readonly report: ReplayReport;

  /**
   * @param report - what was done until the failure
   * @param cause - the failure
   */
  constructor(report: ReplayReport, cause: unknown) {
    super((cause as Error | undefined)?.message ?? 'replay stopped', { cause });
    this.report = report;
  }
}
