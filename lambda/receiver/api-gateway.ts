import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { SOURCE_NOT_ALLOWED } from '../contract/source-allowlist.js';
import type { ReceiveOutcome, ReceiveRequest } from './decision/receive.js';

/**
 * A proxy event the receiver serves: API Gateway REST API (payload v1), HTTP API (payload v2)
 * or a Lambda function URL (same shape as payload v2).
 */
export type ApiGatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** The proxy response; the same shape works for every front door. */
export interface ApiGatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Result of {@link requestFromEvent}: anything but a proxy event is refused. */
export type RequestFromEventResult =
  | { readonly ok: true; readonly request: ReceiveRequest }
  | {
      readonly ok: false;
      readonly reason: 'unsupported_event';
      /** The event's top-level keys, for the log line (never values). */
      readonly eventKeys: readonly string[];
    };

// Top-level keys logged for an unsupported event: enough to recognise it, bounded in size.
const MAX_LOGGED_KEYS = 20;

/**
 * Turns a proxy event into a {@link ReceiveRequest}: upper-case method, lower-case header names
 * (HTTP header names are case-insensitive and v1 keeps the sender's spelling), every copy of a
 * repeated header (v1 `multiValueHeaders`; v2 and function URLs join copies with commas, which
 * the verifier splits), and the body in the form it arrived: the text itself (API Gateway and
 * function URLs pass a UTF-8 body as a string, which the verifier hashes as it is), or the bytes
 * decoded once when the front door base64-encoded it (`undefined` when that base64 is invalid),
 * and the front door's request id (`requestContext.requestId`). An event of any other kind (`{}`, the console's
 * test event, S3 or SQS records) is refused, never thrown on.
 *
 * @param event - whatever Lambda was invoked with
 */
export function requestFromEvent(event: unknown): RequestFromEventResult {
  const method = proxyMethod(event);
  if (method === undefined) {
    const eventKeys =
      typeof event === 'object' && event !== null
        ? Object.keys(event).slice(0, MAX_LOGGED_KEYS)
        : [];
    return { ok: false, reason: 'unsupported_event', eventKeys };
  }
  const proxy = event as ApiGatewayEvent;
  const headers: Record<string, string | string[]> = {};
  const multiValueHeaders = 'multiValueHeaders' in proxy ? proxy.multiValueHeaders : undefined;
  if (multiValueHeaders) {
    for (const [name, values] of Object.entries(multiValueHeaders)) {
      for (const value of values ?? []) addCopy(headers, name, value);
    }
  } else {
    for (const [name, value] of Object.entries(proxy.headers ?? {})) addCopy(headers, name, value);
  }
  const body = requestBody(proxy.body ?? '', proxy.isBase64Encoded === true);
  const requestId = apiRequestId(proxy);
  return {
    ok: true,
    request: {
      method: method.toUpperCase(),
      headers,
      body,
      ...(typeof requestId === 'string' ? { requestId } : {}),
    },
  };
}

/** Adds one copy of a header under its lower-case name; a repeated header keeps every copy. */
function addCopy(
  headers: Record<string, string | string[]>,
  name: string,
  value: string | undefined,
): void {
  if (value === undefined) return;
  const lower = name.toLowerCase();
  const before = headers[lower];
  headers[lower] = before === undefined ? value : [...[before].flat(), value];
}

/**
 * Whether an event is a proxy event of one of the front doors (the events
 * {@link requestFromEvent} turns into requests).
 *
 * @param event - whatever Lambda was invoked with
 */
export function isProxyEvent(event: unknown): event is ApiGatewayEvent {
  return proxyMethod(event) !== undefined;
}

/**
 * The address the front door saw the call come from: `requestContext.identity.sourceIp` (REST,
 * payload v1) or `requestContext.http.sourceIp` (HTTP API and function URLs, payload v2). Never a
 * header: `X-Forwarded-For` is whatever the caller wrote.
 *
 * @param event - the proxy event
 * @returns the address, or `undefined` when the event carries none
 */
export function sourceIpOf(event: ApiGatewayEvent): string | undefined {
  const requestContext: unknown = event.requestContext;
  if (!isObject(requestContext)) return undefined;
  const holder = 'httpMethod' in event ? requestContext.identity : requestContext.http;
  const sourceIp = isObject(holder) ? holder.sourceIp : undefined;
  return typeof sourceIp === 'string' ? sourceIp : undefined;
}

/** The HTTP method of a v1 or v2 proxy event, or `undefined` for any other event. */
function proxyMethod(event: unknown): string | undefined {
  if (!isObject(event) || !isObject(event.requestContext)) return undefined;
  if (typeof event.httpMethod === 'string') return event.httpMethod;
  const http = event.requestContext.http;
  if (event.version === '2.0' && isObject(http) && typeof http.method === 'string') {
    return http.method;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * API Gateway's own id of the request (shown to the caller as `x-amzn-RequestId` / `apigw-requestid`),
 * for correlating a sender's report with our logs.
 *
 * @param event - the proxy event
 */
export function apiRequestId(event: ApiGatewayEvent): string | undefined {
  return event.requestContext?.requestId;
}

// A text body is passed on as it is: the verifier hashes text directly, and encoding it to bytes
// here only for the verifier to decode them again would go over the whole body twice for nothing.
function requestBody(body: string, isBase64Encoded: boolean): string | Uint8Array | undefined {
  if (!isBase64Encoded) return body;
  return isStrictBase64(body) ? Buffer.from(body, 'base64') : undefined;
}

// Buffer.from(text, 'base64') silently skips invalid characters, which would hand the verifier
// bytes the sender never sent. Two flat checks rather than one grouped pattern: a repeated group
// over a multi-megabyte body is a backtracking risk.
function isStrictBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  return !/[^A-Za-z0-9+/]/.test(text.replace(/={1,2}$/, ''));
}

/** Seconds a sender should wait before retrying after a 503, per cause. */
export const RETRY_AFTER_SECONDS = {
  // The key ring retries Secrets Manager at most every 30 s.
  keys_unavailable: 30,
  queue_unavailable: 5,
} as const;

const ERROR_BY_STATUS = {
  400: 'bad_request',
  401: 'unauthorized',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  503: 'service_unavailable',
} as const;

/** The answer to a call whose source address is outside `ALLOWED_SOURCE_IPS`. */
export function sourceNotAllowedResponse(): ApiGatewayResponse {
  return {
    statusCode: 403,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: 'forbidden', reason: SOURCE_NOT_ALLOWED }),
  };
}

/**
 * The HTTP response for an outcome: `{"status":"queued"|"ignored"}` for 200, otherwise
 * `{"error":…,"reason":…}`. Bodies never carry key material, the expected signature, stack
 * traces or the payload.
 *
 * @param outcome - the decision of `receive`
 */
export function responseFromOutcome(outcome: ReceiveOutcome): ApiGatewayResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  switch (outcome.kind) {
    case 'queued':
    case 'ignored':
      return { statusCode: 200, headers, body: JSON.stringify({ status: outcome.kind }) };
    case 'rejected':
      if (outcome.status === 405) headers.allow = 'POST';
      break;
    case 'unavailable':
      headers['retry-after'] = String(RETRY_AFTER_SECONDS[outcome.reason]);
      break;
  }
  const body = JSON.stringify({ error: ERROR_BY_STATUS[outcome.status], reason: outcome.reason });
  return { statusCode: outcome.status, headers, body };
}
