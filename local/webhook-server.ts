import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { fromProxyResult, toApiGatewayEvent } from './api-gateway-event.js';
import { createLocalContext } from './lambda-context.js';
import { closeServer, listen } from './net.js';

/** The only path the local server routes to the handler, as the deployed API does. */
export const WEBHOOK_PATH = '/webhook';

/** API Gateway's own payload limit (10 MB): larger requests never reach the Lambda. */
const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Stage name reported in the events of the local run. */
const LOCAL_STAGE = 'local';

/** A Lambda handler for API Gateway proxy events (the receiver's `handler` fits). */
export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Options of {@link startWebhookServer}. */
export interface WebhookServerOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Interface to bind, e.g. `127.0.0.1` (loopback) or `0.0.0.0`. */
  readonly host: string;
  /** The production handler to call for every request to {@link WEBHOOK_PATH}. */
  readonly handler: ProxyHandler;
  /** Called with errors the handler throws (answered 502, as API Gateway does). */
  readonly onHandlerError?: (error: unknown) => void;
  /** Local inspector hook: told about every call the handler answered. */
  readonly onDelivery?: (delivery: ObservedDelivery) => void;
  /** Local inspector hook: answers every request under {@link INSPECTOR_PATH}. */
  readonly inspector?: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
}

/** Path prefix of the local delivery inspector (see `local/inspector/`). */
export const INSPECTOR_PATH = '/_inspector';

/** A call to {@link WEBHOOK_PATH} and the handler's answer, as the server saw them. */
export interface ObservedDelivery {
  /** The request id the handler got (and the `x-amzn-RequestId` answered). */
  readonly requestId: string;
  /** Arrival time, epoch milliseconds. */
  readonly receivedAt: number;
  readonly method: string;
  /** Request target as sent (path and query). */
  readonly target: string;
  /** Header names and values alternating, as sent. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly statusCode: number;
  readonly responseBody: string;
}

/** A running local webhook endpoint. */
export interface WebhookServer {
  /** Full webhook URL, e.g. `http://127.0.0.1:3000/webhook`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Serves the receiver over plain HTTP the way API Gateway fronts it: requests to
 * {@link WEBHOOK_PATH} (any method, so the handler answers 405 itself) become REST proxy events for
 * `handler`, and its result becomes the response; every other path is 404, a body over 10 MB is 413
 * and a handler that throws is 502 — the answers API Gateway gives before or after the Lambda.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const server = createServer((request, response) => {
    serve(request, response, options).catch((error: unknown) => {
      options.onHandlerError?.(error);
      if (!response.headersSent) writeJson(response, 502, { message: 'Internal server error' });
      else response.destroy();
    });
  });
  const port = await listen(server, options.port, options.host);
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${urlHost}:${port}${WEBHOOK_PATH}`,
    port,
    close: () => closeServer(server),
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: WebhookServerOptions,
): Promise<void> {
  const target = request.url ?? '/';
  const { pathname } = new URL(target, 'http://localhost');
  if (options.inspector !== undefined && isInspectorPath(pathname)) {
    await options.inspector(request, response);
    return;
  }
  if (pathname !== WEBHOOK_PATH) {
    request.resume();
    writeJson(response, 404, { message: 'Not Found' });
    return;
  }
  const body = await readBody(request, API_GATEWAY_MAX_BODY_BYTES);
  if (body === undefined) {
    writeJson(response, 413, { message: 'Request Too Long' });
    return;
  }
  const requestId = randomUUID();
  const requestTimeEpoch = Date.now();
  const event = toApiGatewayEvent(
    {
      method: request.method ?? 'GET',
      target,
      httpVersion: request.httpVersion,
      rawHeaders: request.rawHeaders,
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    },
    { requestId, requestTimeEpoch, stage: LOCAL_STAGE },
  );
  const result = await options.handler(event, createLocalContext(requestId, requestTimeEpoch));
  const parts = fromProxyResult(result);
  response.statusCode = parts.statusCode;
  for (const [name, value] of parts.headers) response.appendHeader(name, value);
  response.setHeader('x-amzn-RequestId', requestId);
  response.end(parts.body);
  options.onDelivery?.({
    requestId,
    receivedAt: requestTimeEpoch,
    method: request.method ?? 'GET',
    target,
    rawHeaders: request.rawHeaders,
    body,
    statusCode: parts.statusCode,
    responseBody: parts.body.toString(),
  });
}

function isInspectorPath(pathname: string): boolean {
  return pathname === INSPECTOR_PATH || pathname.startsWith(`${INSPECTOR_PATH}/`);
}

/** Reads the whole body; resolves `undefined` when it exceeds `limit` bytes (the rest is drained, not kept). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function writeJson(response: ServerResponse, statusCode: number, body: object): void {
  response.writeHead(statusCode, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
