import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { toApiGatewayEvent } from '../../local/api-gateway-event.js';

/** A webhook call as a sender makes it, for building API Gateway events. */
export interface HttpCall {
  /** @default 'POST' */
  readonly method?: string;
  /** Header names as the sender spells them. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Further header lines, in order, after `headers`: a name may repeat (a sender or proxy that
   * sends a header twice) or differ from another only in case.
   */
  readonly extraHeaders?: ReadonlyArray<readonly [name: string, value: string]>;
  /** Text is sent as UTF-8; bytes are sent base64-encoded, as API Gateway does for binary bodies. */
  readonly body?: string | Uint8Array;
  /** Force base64 encoding of a text body (API Gateway does this for binary media types). */
  readonly base64?: boolean;
  /** @default '/webhook' */
  readonly path?: string;
  /** API Gateway's request id. */
  readonly requestId?: string;
  /**
   * The address the front door saw the call come from (`requestContext`'s `sourceIp`).
   * @default '203.0.113.10'
   */
  readonly sourceIp?: string;
}

const DEFAULT_SOURCE_IP = '203.0.113.10';

/** Every header line of the call, in order, names as the sender spells them. */
function headerLines(call: HttpCall): Array<readonly [string, string]> {
  return [...Object.entries(call.headers ?? {}), ...(call.extraHeaders ?? [])];
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
      rawHeaders: headerLines(call).flat(),
      body: bodyBytes(call),
      sourceIp: call.sourceIp ?? DEFAULT_SOURCE_IP,
    },
    { requestId: call.requestId ?? randomUUID(), requestTimeEpoch: Date.now(), stage: 'prod' },
  );
  if (call.base64 !== true) return event;
  return { ...event, body: Buffer.from(bodyBytes(call)).toString('base64'), isBase64Encoded: true };
}

/**
 * An HTTP API (payload format 2.0) proxy event as API Gateway sends it: header names lower-cased,
 * the values of a repeated header joined with commas, an absent body left out.
 *
 * @param call - method, headers, body
 */
export function httpApiEvent(call: HttpCall = {}): APIGatewayProxyEventV2 {
  const method = call.method ?? 'POST';
  const path = call.path ?? '/webhook';
  return payloadV2Event(call, {
    routeKey: `${method} ${path}`,
    apiId: 'a1b2c3d4e5',
    domainName: 'a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com',
    stage: '$default',
  });
}

/**
 * A Lambda function URL event (payload format 2.0 as the function URL documentation shows it):
 * route key and stage `$default`, the URL id as API id, domain `<url-id>.lambda-url.<region>.on.aws`,
 * header names lower-cased and repeated headers joined with commas.
 *
 * @param call - method, headers, body
 */
export function functionUrlEvent(call: HttpCall = {}): APIGatewayProxyEventV2 {
  const urlId = 'abcdefghijklmnopqrstuvwxyz0123456';
  return payloadV2Event(call, {
    routeKey: '$default',
    apiId: urlId,
    domainName: `${urlId}.lambda-url.eu-west-1.on.aws`,
    stage: '$default',
  });
}

function payloadV2Event(
  call: HttpCall,
  where: { routeKey: string; apiId: string; domainName: string; stage: string },
): APIGatewayProxyEventV2 {
  const method = call.method ?? 'POST';
  const path = call.path ?? '/webhook';
  const { body, isBase64Encoded } = encodedBody(call);
  const requestId = call.requestId ?? randomUUID();
  return {
    version: '2.0',
    routeKey: where.routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: joinRepeatedHeaders(headerLines(call)),
    requestContext: {
      accountId: '123456789012',
      apiId: where.apiId,
      domainName: where.domainName,
      domainPrefix: where.domainName.split('.')[0] ?? where.apiId,
      http: {
        method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: call.sourceIp ?? DEFAULT_SOURCE_IP,
        userAgent: 'booking-service/1.0',
      },
      requestId,
      routeKey: where.routeKey,
      stage: where.stage,
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded,
  };
}

/** Payload v2 lower-cases header names and joins the values of a repeated name with commas. */
function joinRepeatedHeaders(
  lines: ReadonlyArray<readonly [string, string]>,
): Record<string, string> {
  const joined = new Map<string, string>();
  for (const [name, value] of lines) {
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

/** Every front door the receiver serves: both API Gateway flavours and a function URL. */
export const FRONT_DOORS = [
  ...API_GATEWAY_FLAVOURS,
  { name: 'function URL', event: functionUrlEvent },
] as const;

/**
 * A Lambda context with a fresh request id.
 *
 * @param functionName - reported in logs
 * @param remainingTimeMs - what `getRemainingTimeInMillis` answers (10 s unless given)
 */
export function lambdaContext(
  functionName = 'webhook-receiver',
  remainingTimeMs: () => number = () => 10_000,
): Context {
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
    getRemainingTimeInMillis: remainingTimeMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
