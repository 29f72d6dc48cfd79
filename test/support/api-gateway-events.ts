import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { toApiGatewayEvent } from '../../local/api-gateway-event.js';

/** A webhook call as a sender makes it, for building API Gateway events. */
export interface HttpCall {
  /** @default 'POST' */
  readonly method?: string;
  /** Header names as the sender spells them. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Text is sent as UTF-8; bytes are sent base64-encoded, as API Gateway does for binary bodies. */
  readonly body?: string | Uint8Array;
  /** Force base64 encoding of a text body (API Gateway does this for binary media types). */
  readonly base64?: boolean;
  /** @default '/webhook' */
  readonly path?: string;
  /** API Gateway's request id. */
  readonly requestId?: string;
}

function bodyBytes(call: HttpCall): Uint8Array {
  return typeof call.body === 'string' ? Buffer.from(call.body) : (call.body ?? new Uint8Array());
}

function encodedBody(call: HttpCall): { body: string | undefined; isBase64Encoded: boolean } {
  if (call.body === undefined) return { body: undefined, isBase64Encoded: false };
  if (typeof call.body === 'string' && call.base64 !== true) {
    return { body: call.body, isBase64Encoded: false };
  }
  return { body: Buffer.from(bodyBytes(call)).toString('base64'), isBase64Encoded: true };
}

/**
 * A REST API (payload format 1.0) proxy event as API Gateway sends it, built by the same adapter
 * `npm start` uses: header names keep the sender's spelling, `multiValueHeaders` is filled, a body
 * that is not UTF-8 (or any body with `base64: true`) arrives base64-encoded.
 *
 * @param call - method, headers, body
 */
export function restApiEvent(call: HttpCall = {}): APIGatewayProxyEvent {
  const event = toApiGatewayEvent(
    {
      method: call.method ?? 'POST',
      target: call.path ?? '/webhook',
      httpVersion: '1.1',
      rawHeaders: Object.entries(call.headers ?? {}).flat(),
      body: bodyBytes(call),
      sourceIp: '203.0.113.10',
    },
    { requestId: call.requestId ?? randomUUID(), requestTimeEpoch: Date.now(), stage: 'prod' },
  );
  if (call.base64 !== true) return event;
  return { ...event, body: Buffer.from(bodyBytes(call)).toString('base64'), isBase64Encoded: true };
}

/**
 * An HTTP API (payload format 2.0) proxy event as API Gateway sends it: header names lower-cased,
 * the values of a name sent twice in different case joined with commas, an absent body left out.
 *
 * @param call - method, headers, body
 */
export function httpApiEvent(call: HttpCall = {}): APIGatewayProxyEventV2 {
  const method = call.method ?? 'POST';
  const path = call.path ?? '/webhook';
  const { body, isBase64Encoded } = encodedBody(call);
  const requestId = call.requestId ?? randomUUID();
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: joinRepeatedHeaders(call.headers ?? {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'a1b2c3d4e5',
      http: {
        method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: 'booking-service/1.0',
      },
      requestId,
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded,
  };
}

/** HTTP API lower-cases header names and joins the values of a repeated name with commas. */
function joinRepeatedHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const joined = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    const before = joined.get(lower);
    joined.set(lower, before === undefined ? value : `${before},${value}`);
  }
  return Object.fromEntries(joined);
}

/** Both payload versions, for `describe.each` over the two API Gateway flavours. */
export const API_GATEWAY_FLAVOURS = [
  { name: 'REST API (v1)', event: restApiEvent },
  { name: 'HTTP API (v2)', event: httpApiEvent },
] as const;

/**
 * A Lambda context with a fresh request id.
 *
 * @param functionName - reported in logs
 */
export function lambdaContext(functionName = 'webhook-receiver'): Context {
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/11/21/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
