import { createHash } from 'node:crypto';
import type { AcceptedKeys } from './key-set.js';
import { type SignedForm, type VerifyResult, verifySignature } from './verify-signature.js';

/**
 * The receiver's decision logic: verify a webhook call, decide what to do with it and build the
 * queue message. It does no I/O itself; keys, the queue and the clock come in through
 * {@link ReceivePorts}, so every response of the contract is testable with in-memory fakes.
 */

/** Thrown by a {@link KeySource} when no key set can be loaded: an outage, answered with 503. */
export class KeyLoadError extends Error {
  /**
   * @param message - which step failed (never key material)
   * @param options - the underlying SDK error
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeyLoadError';
  }
}

/** Thrown by a {@link MessageSink} when the queue did not take the message: answered with 503. */
export class QueueSendError extends Error {
  /**
   * @param message - what failed (never the payload)
   * @param options - the underlying SDK error
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'QueueSendError';
  }
}

/** A webhook call as the receiver sees it, independent of the API Gateway payload version. */
export interface ReceiveRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body's exact bytes (base64 already decoded). */
  readonly body: Uint8Array;
}

/** Which verified events are forwarded: `*` for all, or a set of `event` values. */
export type ForwardEvents = '*' | ReadonlySet<string>;

/** The limits and choices the decision depends on (from configuration). */
export interface ReceivePolicy {
  readonly maxBodyBytes: number;
  readonly toleranceSeconds: number;
  readonly forwardEvents: ForwardEvents;
}

/** The message for the queue. */
export interface QueueMessage {
  /** The body text exactly as received, so a consumer can verify it again. */
  readonly body: string;
  /** String message attributes; only fields present in the payload are set. */
  readonly attributes: {
    readonly event: string;
    readonly event_at?: string;
    readonly source?: string;
  };
  /** The `t` of the signature header, sent as a Number attribute. */
  readonly signatureTimestamp: number;
  /** SHA-256 hex of the squashed body: FIFO deduplication id, `dedup_key` on standard queues. */
  readonly deduplicationId: string;
  /** FIFO message group: `data.id`, else `event` (whichever SQS accepts as a group id). */
  readonly groupId: string;
}

/**
 * What {@link KeySource.refreshAfterMismatch} learned about the key set:
 * - `unchanged`: the keys served are the current ones (a reload found the same keys, or the
 *   last load succeeded recently enough that no reload is allowed yet);
 * - `refreshed`: a reload found new keys, to verify again with;
 * - `unavailable`: the latest load attempt failed, so the keys served may be stale and a
 *   rotation since the last good load cannot be ruled out.
 */
export type KeyRefresh =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'refreshed'; readonly keys: AcceptedKeys }
  | { readonly kind: 'unavailable'; readonly error: KeyLoadError };

/** Supplies the accepted keys; the Secrets Manager key ring or a static key for local runs. */
export interface KeySource {
  /**
   * The keys to verify with (cached by the implementation). May be stale keys kept after a
   * failed reload, so calls signed with them keep working during an outage.
   * @throws {KeyLoadError} when no key set is available
   */
  current(): Promise<AcceptedKeys>;
  /**
   * Called after a signature mismatch: reloads the keys if allowed (rate limited by the
   * implementation), so a fresh rotation is picked up without waiting for the cache to expire,
   * and says whether the mismatch can be trusted (see {@link KeyRefresh}). Never throws: a
   * failed load is reported as `unavailable`.
   */
  refreshAfterMismatch(): Promise<KeyRefresh>;
}

/** Where verified events go. */
export interface MessageSink {
  /**
   * Stores the message durably.
   * @throws {QueueSendError} when the queue did not take it
   */
  send(message: QueueMessage): Promise<void>;
}

/** Everything {@link receive} needs from outside. */
export interface ReceivePorts {
  readonly keys: KeySource;
  readonly sink: MessageSink;
  /** The clock, Unix seconds. */
  readonly now: () => number;
}

/** Why a call was refused with a 4xx status. */
export type RejectReason =
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'invalid_base64'
  | 'body_not_json'
  | 'body_not_utf8'
  | 'invalid_payload'
  | 'unsupported_characters'
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch';

/** What was learned about a call, for logs and metrics (never key material or payload). */
export interface ReceiveDetails {
  /** The `event` field, only once the call is verified. */
  readonly eventType?: string;
  /** `now - t` in seconds, once the header's timestamp is parsed. */
  readonly timestampAgeSeconds?: number;
  /** Label of the key that matched (e.g. `AWSCURRENT`). */
  readonly keyStage?: string;
  /** Which spelling of the body matched. */
  readonly signedForm?: SignedForm;
  /** Whether a signature mismatch triggered an early key reload that found new keys. */
  readonly keysRefreshed?: boolean;
}

/** The decision and its HTTP status (the response table of the README). */
export type ReceiveOutcome =
  | { readonly kind: 'queued'; readonly status: 200; readonly details: ReceiveDetails }
  | { readonly kind: 'ignored'; readonly status: 200; readonly details: ReceiveDetails }
  | {
      readonly kind: 'rejected';
      readonly status: 400 | 401 | 405 | 413;
      readonly reason: RejectReason;
      readonly details: ReceiveDetails;
    }
  | {
      readonly kind: 'unavailable';
      readonly status: 503;
      readonly reason: 'keys_unavailable' | 'queue_unavailable';
      readonly error: KeyLoadError | QueueSendError;
      readonly details: ReceiveDetails;
    };

/** HTTP status of each rejection: the response table of the contract. */
const REJECT_STATUS: Readonly<Record<RejectReason, 400 | 401 | 405 | 413>> = {
  method_not_allowed: 405,
  payload_too_large: 413,
  invalid_base64: 400,
  body_not_json: 400,
  body_not_utf8: 400,
  invalid_payload: 400,
  unsupported_characters: 400,
  missing_header: 401,
  malformed_header: 401,
  timestamp_too_old: 401,
  timestamp_in_future: 401,
  signature_mismatch: 401,
};

/**
 * Decides what to do with one webhook call, in this order (cheapest and least trusting first):
 * method (405), size (413), keys (503 when none can be loaded), signature via `verifySignature`
 * (401 for header, timestamp and mismatch; 400 when the body is not JSON; 503 for a mismatch
 * while the keys are stale), then, on a verified call only, payload shape (400),
 * `FORWARD_EVENTS` (200 ignored) and the queue (200 queued, or 503 so the sender retries and
 * nothing unstored is acknowledged).
 *
 * On a signature mismatch the key source may reload keys once, so a call signed with a freshly
 * rotated key is accepted without waiting for the cache to expire. When the key source cannot
 * load the current keys (its latest load failed), a mismatch is answered 503, never 401: the
 * call may be signed with a key rotated in since the last good load. Calls that verify with the
 * keys still cached are accepted during such an outage.
 *
 * @param request - the call
 * @param policy - limits from configuration
 * @param ports - key source, queue and clock
 * @throws only on bugs: expected failures and outages are outcomes
 */
export async function receive(
  request: ReceiveRequest,
  policy: ReceivePolicy,
  ports: ReceivePorts,
): Promise<ReceiveOutcome> {
  if (request.method !== 'POST') return rejected('method_not_allowed', {});
  if (request.body.byteLength > policy.maxBodyBytes) return rejected('payload_too_large', {});

  let keys: AcceptedKeys;
  try {
    keys = await ports.keys.current();
  } catch (error) {
    if (error instanceof KeyLoadError) return unavailable('keys_unavailable', error, {});
    throw error;
  }

  const now = ports.now();
  const verifyWith = (candidates: AcceptedKeys): VerifyResult =>
    verifySignature({
      header: request.headers['service-signature'],
      body: request.body,
      keys: candidates.keys,
      now,
      toleranceSeconds: policy.toleranceSeconds,
    });
  let result = verifyWith(keys);
  let keysRefreshed = false;
  if (!result.ok && result.reason === 'signature_mismatch') {
    const refresh = await ports.keys.refreshAfterMismatch();
    if (refresh.kind === 'unavailable') {
      // The call may be signed with a key rotated in since the last good load: a 401 would tell
      // the sender to give up on a genuine call, a 503 makes it retry once the keys load again.
      return unavailable('keys_unavailable', refresh.error, timestampDetails(result, now));
    }
    if (refresh.kind === 'refreshed') {
      keys = refresh.keys;
      keysRefreshed = true;
      result = verifyWith(keys);
    }
  }

  const base: ReceiveDetails = {
    ...timestampDetails(result, now),
    ...(keysRefreshed ? { keysRefreshed } : {}),
  };
  if (!result.ok) return rejected(result.reason, base);

  const details: ReceiveDetails = {
    ...base,
    keyStage: keys.labels[result.keyIndex] ?? `key_${result.keyIndex}`,
    signedForm: result.form,
  };
  const payload = readPayload(request.body, result.canonicalBody);
  if (!payload.ok) return rejected(payload.reason, details);
  const verified: ReceiveDetails = { ...details, eventType: payload.event };

  if (policy.forwardEvents !== '*' && !policy.forwardEvents.has(payload.event)) {
    return { kind: 'ignored', status: 200, details: verified };
  }
  try {
    await ports.sink.send(buildMessage(payload, result.timestamp, result.canonicalBody));
  } catch (error) {
    if (error instanceof QueueSendError) return unavailable('queue_unavailable', error, verified);
    throw error;
  }
  return { kind: 'queued', status: 200, details: verified };
}

/**
 * A 4xx outcome with the status the contract gives `reason`. Exported for the API Gateway
 * adapter, which refuses bodies it cannot decode before {@link receive} runs.
 *
 * @param reason - why the call is refused
 * @param details - what was learned so far, for logs
 */
export function rejected(reason: RejectReason, details: ReceiveDetails = {}): ReceiveOutcome {
  return { kind: 'rejected', status: REJECT_STATUS[reason], reason, details };
}

function timestampDetails(result: VerifyResult, now: number): ReceiveDetails {
  return result.timestamp === undefined ? {} : { timestampAgeSeconds: now - result.timestamp };
}

function unavailable(
  reason: 'keys_unavailable' | 'queue_unavailable',
  error: KeyLoadError | QueueSendError,
  details: ReceiveDetails,
): ReceiveOutcome {
  return { kind: 'unavailable', status: 503, reason, error, details };
}

/** The fields of a verified payload that the message is built from. */
interface Payload {
  readonly text: string;
  readonly event: string;
  readonly eventAt: string | undefined;
  readonly source: string | undefined;
  readonly dataId: string | undefined;
}

type PayloadResult =
  | ({ readonly ok: true } & Payload)
  | { readonly ok: false; readonly reason: RejectReason };

// Fatal: a body that is not valid UTF-8 cannot be put on the queue byte for byte.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// Characters SQS accepts in message bodies and attribute values; anything else would make
// SendMessage fail on every retry, so such a call is refused up front.
const SQS_UNSAFE_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function readPayload(body: Uint8Array, canonicalBody: string): PayloadResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, reason: 'body_not_utf8' };
  }
  if (SQS_UNSAFE_CHARACTER.test(text)) return { ok: false, reason: 'unsupported_characters' };
  // The verifier already proved canonicalBody is a single JSON value.
  const value: unknown = JSON.parse(canonicalBody);
  if (!isRecord(value) || !isSqsSafeString(value.event)) {
    return { ok: false, reason: 'invalid_payload' };
  }
  return {
    ok: true,
    text,
    event: value.event,
    eventAt: optionalString(value.event_at),
    source: optionalString(value.source),
    dataId: isRecord(value.data) ? optionalString(value.data.id) : undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** SQS rejects empty attribute values and characters outside its allowed set. */
function isSqsSafeString(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && !SQS_UNSAFE_CHARACTER.test(value);
}

function optionalString(value: unknown): string | undefined {
  return isSqsSafeString(value) ? value : undefined;
}

// SQS MessageGroupId: 1 to 128 printable ASCII characters without space.
const GROUP_ID = /^[\x21-\x7E]{1,128}$/;
const FALLBACK_GROUP_ID = 'webhook';

function buildMessage(payload: Payload, timestamp: number, canonicalBody: string): QueueMessage {
  return {
    body: payload.text,
    attributes: {
      event: payload.event,
      ...(payload.eventAt === undefined ? {} : { event_at: payload.eventAt }),
      ...(payload.source === undefined ? {} : { source: payload.source }),
    },
    signatureTimestamp: timestamp,
    deduplicationId: createHash('sha256').update(canonicalBody).digest('hex'),
    groupId:
      [payload.dataId, payload.event].find((id) => id !== undefined && GROUP_ID.test(id)) ??
      FALLBACK_GROUP_ID,
  };
}
