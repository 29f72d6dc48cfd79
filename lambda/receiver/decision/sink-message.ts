import { createHash } from 'node:crypto';
import type { ForwardEvents } from '../../contract/forward-events.js';
import type { Payload } from './read-payload.js';

/**
 * The routing half of the receiver: which verified events are forwarded, and the message a sink
 * stores for one. Independent of the sink (SQS today); the adapter maps the fields.
 */

export type { ForwardEvents } from '../../contract/forward-events.js';

/** The message for the sink. */
export interface SinkMessage {
  /** The body text exactly as received, so a consumer can verify it again. */
  readonly body: string;
  /** String attributes; only fields present in the payload are set. */
  readonly attributes: {
    readonly event: string;
    readonly event_at?: string;
    readonly source?: string;
    /** The endpoint the call was sent to, when the receiver serves several. */
    readonly endpoint?: string;
    /** The front door's request id, when it is 1 to 128 printable ASCII characters. */
    readonly request_id?: string;
  };
  /** The `t` of the signature header. */
  readonly signatureTimestamp: number;
  /**
   * SHA-256 hex of the squashed body: the key a sink or consumer deduplicates on. With an
   * endpoint, `<endpoint>:<hex>`, so the same booking sent to two endpoints is two messages
   * (at most 32 + 1 + 64 = 97 characters).
   */
  readonly deduplicationId: string;
  /**
   * Ordering group: `data.id`, else `event`, else `webhook`; with an endpoint, prefixed with
   * `<endpoint>:` so two endpoints' bookings are never ordered behind each other. The first
   * candidate that is 1 to 128 printable ASCII characters, prefix included, is used.
   */
  readonly groupId: string;
}

/**
 * Whether a verified event is forwarded under `FORWARD_EVENTS`.
 *
 * @param forwardEvents - the configured list
 * @param event - the payload's `event`
 */
export function isForwarded(forwardEvents: ForwardEvents, event: string): boolean {
  return forwardEvents === '*' || forwardEvents.has(event);
}

// Group ids: 1 to 128 printable ASCII characters without space (what FIFO queues accept).
const GROUP_ID = /^[\x21-\x7E]{1,128}$/;
const FALLBACK_GROUP_ID = 'webhook';
// API Gateway and function URL request ids are UUID-like; anything else (a hand-made test event)
// is left out rather than risk an attribute value SQS refuses, which would answer 503.
const REQUEST_ID = /^[\x21-\x7E]{1,128}$/;

/**
 * The message for a verified payload.
 *
 * @param payload - read by `readPayload`
 * @param timestamp - the verified header's `t`
 * @param canonicalBody - the squashed body, hashed for deduplication
 * @param endpoint - the endpoint called, when the receiver serves several (a valid endpoint
 *   name: 1 to 32 characters of `a-z`, `0-9` and `-`)
 * @param requestId - the front door's request id, for the `request_id` attribute
 */
export function buildMessage(
  payload: Payload,
  timestamp: number,
  canonicalBody: string,
  endpoint?: string,
  requestId?: string,
): SinkMessage {
  // Endpoint names never hold `:`, so the prefix cannot be mistaken for part of an id.
  const prefix = endpoint === undefined ? '' : `${endpoint}:`;
  const groupCandidates = [payload.dataId, payload.event, FALLBACK_GROUP_ID].flatMap((id) =>
    id === undefined ? [] : [prefix + id],
  );
  return {
    body: payload.text,
    attributes: {
      event: payload.event,
      ...(payload.eventAt === undefined ? {} : { event_at: payload.eventAt }),
      ...(payload.source === undefined ? {} : { source: payload.source }),
      ...(endpoint === undefined ? {} : { endpoint }),
      ...(requestId !== undefined && REQUEST_ID.test(requestId) ? { request_id: requestId } : {}),
    },
    signatureTimestamp: timestamp,
    deduplicationId: prefix + createHash('sha256').update(canonicalBody).digest('hex'),
    groupId: groupCandidates.find((id) => GROUP_ID.test(id)) ?? prefix + FALLBACK_GROUP_ID,
  };
}
