import { createHash } from 'node:crypto';
import { parseSignatureHeader } from '../../lambda/core/index.js';
import { ALLOWED_SOURCE_IPS } from '../../lambda/receiver/config.js';
import { SOURCE_NOT_ALLOWED } from '../../lambda/receiver/source-allowlist.js';
import type { ObservedDelivery } from '../webhook-server.js';

/** Bodies above this size are kept truncated (with their full size and SHA-256). */
export const MAX_KEPT_BODY_BYTES = 64 * 1024;

/** The queue message a queued delivery became, as the embedded queue saw it. */
export interface QueuedMessage {
  readonly messageId: string;
  /** Message attributes as sent, name -> string value. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Times a consumer received it. */
  readonly receiveCount: number;
  /** Whether a consumer deleted it (processed it). */
  readonly consumed: boolean;
}

/** One row of the inspector's list. */
export interface DeliverySummary {
  /** The request id the local server gave the call (`x-amzn-RequestId`). */
  readonly id: string;
  /** When it arrived, ISO 8601. */
  readonly receivedAt: string;
  /** Path the call was sent to. */
  readonly endpoint: string;
  readonly method: string;
  readonly status: number;
  /** `queued`, `ignored` or the rejection reason the receiver answered with. */
  readonly reason: string;
  readonly eventType?: string;
  readonly bookingId?: string;
  /** Arrival time minus the signature's `t`, in seconds (positive: signed in the past). */
  readonly skewSeconds?: number;
  readonly bodyBytes: number;
  /** The delivery this one replays, when sent by the inspector's replay button. */
  readonly replayOf?: string;
  readonly consumed?: boolean;
}

/** Everything the detail view shows. */
export interface DeliveryDetail extends DeliverySummary {
  /** Request headers as sent, in order, names as spelled by the sender. */
  readonly headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The body as received (UTF-8 text, or base64 when `bodyEncoding` says so), truncated past 64 KiB. */
  readonly body: string;
  readonly bodyEncoding: 'utf8' | 'base64';
  readonly bodyTruncated: boolean;
  /** SHA-256 hex of the full body. */
  readonly bodySha256: string;
  /** The caller's address as the receiver saw it (what `ALLOWED_SOURCE_IPS` is checked against). */
  readonly sourceIp: string;
  /** The receiver's response body. */
  readonly response: string;
  /**
   * For 401s: what would have made the signature match (as `npm run verify` explains); for a
   * 403 `source_not_allowed`: which address was refused and what would let it in.
   */
  readonly diagnosis?: readonly string[];
  readonly message?: QueuedMessage;
}

/** A delivery as the store keeps it: the detail plus the exact bytes needed to replay it. */
export interface StoredDelivery {
  readonly detail: DeliveryDetail;
  /** The exact body, or `undefined` when it was too large to keep. */
  readonly bytes: Buffer | undefined;
  readonly rawHeaders: readonly string[];
  readonly target: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns what the local server saw into a stored delivery: the verdict from the receiver's own
 * answer, event type and booking id from the body, the skew from the signature header.
 *
 * @param observed - the request and the handler's answer
 * @param diagnose - hints for a 401 (the local key stays inside this callback)
 */
export function describeDelivery(
  observed: ObservedDelivery,
  diagnose: (header: string, body: Buffer, reason: string, nowSeconds: number) => string[],
): StoredDelivery {
  const { body } = observed;
  const headers = pairs(observed.rawHeaders);
  const signature = headers.find(([name]) => name.toLowerCase() === 'service-signature')?.[1];
  const nowSeconds = Math.floor(observed.receivedAt / 1000);
  const answer = parseObject(observed.responseBody);
  const reason = stringField(answer, 'reason') ?? stringField(answer, 'status') ?? 'unknown';
  const payload = parseObject(body.toString('utf8'));
  const data = payload?.data;
  const parsedHeader = parseSignatureHeader(signature);
  const kept = body.byteLength > MAX_KEPT_BODY_BYTES ? body.subarray(0, MAX_KEPT_BODY_BYTES) : body;
  const text = decodeUtf8(kept);
  const eventType = stringField(payload, 'event');
  const bookingId = isRecord(data) ? stringField(data, 'id') : undefined;
  const detail: DeliveryDetail = {
    id: observed.requestId,
    receivedAt: new Date(observed.receivedAt).toISOString(),
    endpoint: new URL(observed.target, 'http://localhost').pathname,
    method: observed.method,
    status: observed.statusCode,
    reason,
    ...(eventType === undefined ? {} : { eventType }),
    ...(bookingId === undefined ? {} : { bookingId }),
    ...(parsedHeader.ok ? { skewSeconds: nowSeconds - parsedHeader.header.timestamp } : {}),
    bodyBytes: body.byteLength,
    headers,
    body: text ?? kept.toString('base64'),
    bodyEncoding: text === undefined ? 'base64' : 'utf8',
    bodyTruncated: kept !== body,
    bodySha256: createHash('sha256').update(body).digest('hex'),
    sourceIp: observed.sourceIp,
    response: observed.responseBody,
    ...(observed.statusCode === 401
      ? { diagnosis: diagnose(signature ?? '', body, reason, nowSeconds) }
      : {}),
    ...(reason === SOURCE_NOT_ALLOWED
      ? { diagnosis: sourceNotAllowedHints(observed.sourceIp) }
      : {}),
  };
  return {
    detail,
    bytes: kept === body ? body : undefined,
    rawHeaders: observed.rawHeaders,
    target: observed.target,
  };
}

/** Why a call from `sourceIp` was refused, and what would let it in. */
function sourceNotAllowedHints(sourceIp: string): string[] {
  return [
    `The call came from ${sourceIp || 'an unknown address'}, which is outside ${ALLOWED_SOURCE_IPS}: the receiver refused it before reading the body or loading a key.`,
    `To let it in, add the address (or its range) to ${ALLOWED_SOURCE_IPS}, or unset it, and start npm start again.`,
  ];
}

/** The list row of a detail (the fields the table shows). */
export function summaryOf(detail: DeliveryDetail): DeliverySummary {
  const {
    headers,
    body,
    bodyEncoding,
    bodyTruncated,
    bodySha256,
    sourceIp,
    response,
    diagnosis,
    ...rest
  } = detail;
  const { message, ...summary } = rest;
  return message === undefined ? summary : { ...summary, consumed: message.consumed };
}

function pairs(rawHeaders: readonly string[]): Array<readonly [string, string]> {
  const result: Array<readonly [string, string]> = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    result.push([rawHeaders[index] ?? '', rawHeaders[index + 1] ?? '']);
  }
  return result;
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(
  record: Record<string, unknown> | undefined,
  name: string,
): string | undefined {
  const value = record?.[name];
  return typeof value === 'string' ? value : undefined;
}
