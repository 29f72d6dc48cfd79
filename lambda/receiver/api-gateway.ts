import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ReceiveOutcome, ReceiveRequest } from '../core/receive.js';

/** A proxy event from API Gateway: REST API (payload v1) or HTTP API (payload v2). */
export type ApiGatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

/** The proxy response; the same shape works for both payload versions. */
export interface ApiGatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Result of {@link requestFromEvent}: the only way an event cannot become a request is bad base64. */
export type RequestFromEventResult =
  | { readonly ok: true; readonly request: ReceiveRequest }
  | { readonly ok: false; readonly reason: 'invalid_base64' };

/**
 * Turns an API Gateway event (v1 or v2) into a {@link ReceiveRequest}: upper-case method,
 * lower-case header names (HTTP header names are case-insensitive and v1 keeps the sender's
 * spelling), and the body's exact bytes, base64-decoded when API Gateway encoded it.
 *
 * @param event - the proxy event
 */
export function requestFromEvent(event: ApiGatewayEvent): RequestFromEventResult {
  const body = bodyBytes(event.body ?? '', event.isBase64Encoded);
  if (body === undefined) return { ok: false, reason: 'invalid_base64' };
  const method = 'httpMethod' in event ? event.httpMethod : event.requestContext.http.method;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return { ok: true, request: { method: method.toUpperCase(), headers, body } };
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

function bodyBytes(body: string, isBase64Encoded: boolean): Uint8Array | undefined {
  if (!isBase64Encoded) return Buffer.from(body, 'utf8');
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
