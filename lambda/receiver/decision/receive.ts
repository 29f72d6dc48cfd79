import { WebhookReceiverError } from '../../core/errors.js';
import { SIGNATURE_HEADER_KEY } from '../../core/signature-header.js';
import {
  type SignedForm,
  unreadableHeaderReason,
  type VerifyResult,
  verifySignature,
} from '../../core/verify-signature.js';
import type { AcceptedKeys } from './key-set.js';
import { type PayloadFailureReason, readPayload } from './read-payload.js';
import { buildMessage, type ForwardEvents, isForwarded, type SinkMessage } from './sink-message.js';

/**
 * The receiver's decision: verify a webhook call, then read its payload, then hand it to the
 * routing (`sink-message.ts`). It does no I/O itself; keys, the sink and the clock come in
 * through {@link ReceivePorts}, so every response of the contract is testable with in-memory
 * fakes.
 */

/** A webhook call as the receiver sees it, independent of the front door. */
export interface ReceiveRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** Header names in lower case; a header sent more than once has one entry per copy. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The body in the form the front door delivered it: the text as given (a string stands for its
   * UTF-8 bytes), or the exact bytes once base64 is decoded; `undefined` when the front door
   * marked it base64 but it is not: such a body can never verify.
   */
  readonly body: string | Uint8Array | undefined;
  /**
   * The endpoint called, when the receiver serves several (one key each): it goes into the
   * message and its ids. Unset for the single endpoint.
   */
  readonly endpoint?: string;
  /**
   * The front door's id of the request (`requestContext.requestId`): it goes into the message as
   * `request_id`, so a delivery can be followed from the access log to the consumer.
   */
  readonly requestId?: string;
}

/** The limits and choices the decision depends on (from configuration). */
export interface ReceivePolicy {
  readonly maxBodyBytes: number;
  readonly toleranceSeconds: number;
  readonly forwardEvents: ForwardEvents;
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
   * @throws {SinkSendError} when the sink did not take it
   */
  send(message: SinkMessage): Promise<void>;
}

/** Everything {@link receive} needs from outside. */
export interface ReceivePorts {
  readonly keys: KeySource;
  readonly sink: MessageSink;
  /** The clock, Unix seconds. */
  readonly now: () => number;
}

/** Thrown by a key source when no key set can be loaded: an outage, answered with 503. */
export class KeyLoadError extends WebhookReceiverError {}

/** Thrown by a message sink when it did not store the message: answered with 503. */
export class SinkSendError extends WebhookReceiverError {}

export type { ForwardEvents, SinkMessage } from './sink-message.js';

/** Why a call was refused with a 4xx status. */
export type RejectReason =
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_event'
  | 'body_not_json'
  | PayloadFailureReason
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
  /** The message's deduplication id, once a message is built for the sink. */
  readonly dedupKey?: string;
}

/** The decision and its HTTP status (the response table of docs/how-it-works.md). */
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
      readonly error: KeyLoadError | SinkSendError;
      readonly details: ReceiveDetails;
    };

/** HTTP status of each rejection: the response table of the contract. */
const REJECT_STATUS: Readonly<Record<RejectReason, 400 | 401 | 405 | 413>> = {
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_event: 400,
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
 * method (405), size (413), a header no copy of which can be read (401 `missing_header` or
 * `malformed_header`, before any key is loaded), keys (503 when none can be loaded), signature
 * via `verifySignature` (401 for timestamp and mismatch, whatever the body is; 503 for a
 * mismatch while the keys are stale), then, on a verified call only, the payload (400: not JSON, not UTF-8,
 * characters a store refuses, not an object with `event`), `FORWARD_EVENTS` (200 ignored) and
 * the sink (200 queued, or 503 so the sender retries and nothing unstored is acknowledged).
 * Nothing in an unverified body can choose the answer: every call that does not verify is 401.
 *
 * On a signature mismatch the key source may reload keys once, so a call signed with a freshly
 * rotated key is accepted without waiting for the cache to expire. When the key source cannot
 * load the current keys (its latest load failed), a mismatch is answered 503, never 401: the
 * call may be signed with a key rotated in since the last good load. Calls that verify with the
 * keys still cached are accepted during such an outage.
 *
 * @param request - the call
 * @param policy - limits from configuration
 * @param ports - key source, sink and clock
 * @throws only on bugs: expected failures and outages are outcomes
 */
export async function receive(
  request: ReceiveRequest,
  policy: ReceivePolicy,
  ports: ReceivePorts,
): Promise<ReceiveOutcome> {
  if (request.method !== 'POST') return rejected('method_not_allowed', {});
  const { body } = request;
  if (body !== undefined && isLongerThan(body, policy.maxBodyBytes)) {
    return rejected('payload_too_large', {});
  }

  // A header no key could ever verify is answered without keys: while they cannot be loaded, a
  // 503 would tell the sender to retry a call that can only ever be refused.
  const unreadable = unreadableHeaderReason(request.headers[SIGNATURE_HEADER_KEY]);
  if (unreadable !== undefined) return rejected(unreadable, {});

  let keys: AcceptedKeys;
  try {
    keys = await ports.keys.current();
  } catch (error) {
    if (error instanceof KeyLoadError) return unavailable('keys_unavailable', error, {});
    throw error;
  }

  const now = ports.now();
  let result = verifyWith(request, keys, now, policy);
  let keysRefreshed = false;
  if (!result.ok && result.reason === 'signature_mismatch' && body !== undefined) {
    const refresh = await ports.keys.refreshAfterMismatch();
    if (refresh.kind === 'unavailable') {
      // The call may be signed with a key rotated in since the last good load: a 401 would tell
      // the sender to give up on a genuine call, a 503 makes it retry once the keys load again.
      return unavailable('keys_unavailable', refresh.error, timestampDetails(result, now));
    }
    if (refresh.kind === 'refreshed') {
      keys = refresh.keys;
      keysRefreshed = true;
      result = verifyWith(request, keys, now, policy);
    }
  }

  const base: ReceiveDetails = {
    ...timestampDetails(result, now),
    ...(keysRefreshed ? { keysRefreshed } : {}),
  };
  // body_not_json is reported only for a body whose signature verified: a 400, not a 401. An
  // unreadable body never verifies; the second test only tells the compiler so, failing closed.
  if (!result.ok || body === undefined) {
    return rejected(result.ok ? 'signature_mismatch' : result.reason, base);
  }

  const details: ReceiveDetails = {
    ...base,
    keyStage: keys.labels[result.keyIndex] ?? `key_${result.keyIndex}`,
    signedForm: result.form,
  };
  const payload = readPayload(body, result.canonicalBody);
  if (!payload.ok) return rejected(payload.reason, details);
  const verified: ReceiveDetails = { ...details, eventType: payload.event };

  if (!isForwarded(policy.forwardEvents, payload.event)) {
    return { kind: 'ignored', status: 200, details: verified };
  }
  const message = buildMessage(
    payload,
    result.timestamp,
    result.canonicalBody,
    request.endpoint,
    request.requestId,
  );
  const sent: ReceiveDetails = { ...verified, dedupKey: message.deduplicationId };
  try {
    await ports.sink.send(message);
  } catch (error) {
    if (error instanceof SinkSendError) return unavailable('queue_unavailable', error, sent);
    throw error;
  }
  return { kind: 'queued', status: 200, details: sent };
}

/**
 * A 4xx outcome with the status the contract gives `reason`. Exported for the handler, which
 * refuses events that are not proxy events before {@link receive} runs.
 *
 * @param reason - why the call is refused
 * @param details - what was learned so far, for logs
 */
export function rejected(reason: RejectReason, details: ReceiveDetails = {}): ReceiveOutcome {
  return { kind: 'rejected', status: REJECT_STATUS[reason], reason, details };
}

function verifyWith(
  request: ReceiveRequest,
  keys: AcceptedKeys,
  now: number,
  policy: ReceivePolicy,
): VerifyResult {
  return verifySignature({
    header: request.headers[SIGNATURE_HEADER_KEY],
    body: request.body,
    keys: keys.keys,
    now,
    toleranceSeconds: policy.toleranceSeconds,
  });
}

/** Whether the body's UTF-8 bytes number more than `limit`. */
function isLongerThan(body: string | Uint8Array, limit: number): boolean {
  if (typeof body !== 'string') return body.byteLength > limit;
  // A UTF-16 code unit takes at most 3 UTF-8 bytes: most bodies are decided without counting,
  // which takes half the time of the HMAC for 64 KB of non-ASCII text.
  return body.length * 3 > limit && Buffer.byteLength(body, 'utf8') > limit;
}

function timestampDetails(result: VerifyResult, now: number): ReceiveDetails {
  return result.timestamp === undefined ? {} : { timestampAgeSeconds: now - result.timestamp };
}

function unavailable(
  reason: 'keys_unavailable' | 'queue_unavailable',
  error: KeyLoadError | SinkSendError,
  details: ReceiveDetails,
): ReceiveOutcome {
  return { kind: 'unavailable', status: 503, reason, error, details };
}
