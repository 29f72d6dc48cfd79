import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { webhookPath } from '../lambda/contract/endpoints.js';

/** What the local HTTP server knows about one request, independent of `node:http` types. */
export interface RawHttpRequest {
  /** Request method as sent, e.g. `POST`. */
  readonly method: string;
  /** Request target as on the request line: path plus optional query, e.g. `/webhook?x=1`. */
  readonly target: string;
  /** HTTP version, e.g. `1.1`. */
  readonly httpVersion: string;
  /** Alternating header names and values as received (`IncomingMessage.rawHeaders`): casing and duplicates kept. */
  readonly rawHeaders: readonly string[];
  /** Body bytes exactly as received. */
  readonly body: Uint8Array;
  /** Address of the client. */
  readonly sourceIp: string;
}

/** Per-request values API Gateway would supply. */
export interface ApiGatewayEventOptions {
  /** Request id, also used as the Lambda context's `awsRequestId`. */
  readonly requestId: string;
  /** Arrival time in epoch milliseconds. */
  readonly requestTimeEpoch: number;
  /** Stage name reported in `requestContext.stage`. */
  readonly stage: string;
}

/** Cosmetic ids that real events carry; the receiver never relies on them. */
const LOCAL_ACCOUNT_ID = '123456789012';
const LOCAL_API_ID = 'local';

/** Decodes strict UTF-8, keeping a byte order mark as a character so the text re-encodes to the same bytes. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Builds the API Gateway REST API (payload format 1.0) proxy event that API Gateway would hand the
 * Lambda for this request. The body is passed as text when it is valid UTF-8 (what API Gateway does
 * without binary media types) and base64 with `isBase64Encoded: true` otherwise, so the handler
 * always sees the exact bytes. Header and query values follow API Gateway: `headers` keeps the last
 * value of a repeated name, `multiValueHeaders` keeps all of them in order.
 */
export function toApiGatewayEvent(
  request: RawHttpRequest,
  options: ApiGatewayEventOptions,
): APIGatewayProxyEvent {
  const url = new URL(request.target, 'http://localhost');
  const { single: headers, multi: multiValueHeaders } = groupPairs(headerPairs(request.rawHeaders));
  const query = groupPairs([...url.searchParams]);
  const hasQuery = url.searchParams.size > 0;
  const body = encodeBody(request.body);
  return {
    resource: webhookPath(),
    path: url.pathname,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query.single : null,
    multiValueQueryStringParameters: hasQuery ? query.multi : null,
    pathParameters: null,
    stageVariables: null,
    body: body.text,
    isBase64Encoded: body.isBase64Encoded,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      authorizer: undefined,
      domainName: lastValue(multiValueHeaders, 'host'),
      extendedRequestId: options.requestId,
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: lastValue(multiValueHeaders, 'user-agent') ?? null,
        userArn: null,
      },
      path: url.pathname,
      protocol: `HTTP/${request.httpVersion}`,
      requestId: options.requestId,
      requestTime: formatRequestTime(options.requestTimeEpoch),
      requestTimeEpoch: options.requestTimeEpoch,
      resourceId: LOCAL_API_ID,
      resourcePath: webhookPath(),
      stage: options.stage,
    },
  };
}

/**
 * The caller's address as API Gateway reports it, for `ALLOWED_SOURCE_IPS` and the inspector: an
 * IPv4 caller of a dual-stack socket (`HOST=::`) without its `::ffff:` prefix. A socket that
 * is already gone has no `remoteAddress`: empty then, which no allowlist lets in (never a
 * stand-in such as 127.0.0.1, which a list for local tries would let in).
 */
export function sourceAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? '';
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice('::ffff:'.length) : address;
}

/** An HTTP response ready to write: header pairs (repeats allowed) and body bytes. */
export interface HttpResponseParts {
  readonly statusCode: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/**
 * Turns a proxy integration result into the HTTP response API Gateway would send: `headers` and
 * `multiValueHeaders` are merged (API Gateway sends both), and a base64 body is decoded.
 */
export function fromProxyResult(result: APIGatewayProxyResult): HttpResponseParts {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    headers.push([name, String(value)]);
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    for (const value of values) headers.push([name, String(value)]);
  }
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded === true ? 'base64' : 'utf8');
  return { statusCode: result.statusCode, headers, body };
}

function headerPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    pairs.push([rawHeaders[i] as string, rawHeaders[i + 1] as string]);
  }
  return pairs;
}

/**
 * Groups name/value pairs into API Gateway's single-value (last wins) and multi-value maps. Built
 * with `Object.fromEntries` so a client-chosen name such as `__proto__` stays a plain key.
 */
function groupPairs(pairs: readonly (readonly [string, string])[]): {
  single: Record<string, string>;
  multi: Record<string, string[]>;
} {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = grouped.get(name);
    if (values) values.push(value);
    else grouped.set(name, [value]);
  }
  return {
    single: Object.fromEntries([...grouped].map(([name, values]) => [name, values.at(-1) ?? ''])),
    multi: Object.fromEntries(grouped),
  };
}

function lastValue(multi: Record<string, string[]>, lowerName: string): string | undefined {
  const entry = Object.entries(multi).findLast(([name]) => name.toLowerCase() === lowerName);
  return entry?.[1].at(-1);
}

function encodeBody(bytes: Uint8Array): { text: string | null; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { text: null, isBase64Encoded: false };
  try {
    return { text: strictUtf8.decode(bytes), isBase64Encoded: false };
  } catch {
    return { text: Buffer.from(bytes).toString('base64'), isBase64Encoded: true };
  }
}

/** API Gateway's `requestTime` format, e.g. `09/Apr/2015:12:34:56 +0000`. */
function formatRequestTime(epochMs: number): string {
  // toUTCString(): 'Thu, 09 Apr 2015 12:34:56 GMT'
  const [, day, month, year, time] = new Date(epochMs).toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
}
