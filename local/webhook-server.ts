import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { RECEIVER_TIMEOUT_SECONDS } from '../lambda/contract/settings.js';
import { fromProxyResult, sourceAddress, toApiGatewayEvent } from './api-gateway-event.js';
import { createLocalContext } from './lambda-context.js';
import { Environments, type MAX_ENVIRONMENTS, type ProxyHandler } from './lambda-environments.js';
import {
  type BodyBudget,
  closeServer,
  continueBody,
  continueOnlyToRead,
  endWithJson,
  listen,
} from './net.js';
import {
  ClientGoneError,
  discardBody,
  readWebhookBody,
  webhookBodyBudget,
} from './webhook-body.js';
import { Connections, Draining, unparsableStatus } from './webhook-connections.js';

/** Longest a client may take to send the request line and headers (slowloris guard). */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** Longest a client may take to send the whole request, body included. */
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Stage name reported in the events of the local run. */
const LOCAL_STAGE = 'local';

/** Options of {@link startWebhookServer}. */
export interface WebhookServerOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** Interface to bind, e.g. `127.0.0.1` (loopback) or `0.0.0.0`. */
  readonly host: string;
  /**
   * The production handler of one Lambda execution environment, called for requests to
   * `/webhook` (or `/webhook/<name>`) one at a time.
   */
  readonly handler: ProxyHandler;
  /**
   * Starts the handler of another execution environment when a call finds every one busy, as
   * Lambda scales out (up to {@link MAX_ENVIRONMENTS}, beyond which calls wait for a free one);
   * each environment still takes one call at a time.
   * @default none: `handler` takes every call, one after the other
   */
  readonly startEnvironment?: () => ProxyHandler;
  /**
   * Named endpoints (`ENDPOINTS`): every `/webhook/<name>` goes to the handler, which answers 404
   * for a name it does not serve, as deployed; `/webhook` itself is then 404 here.
   * @default false: `/webhook` only
   */
  readonly namedEndpoints?: boolean;
  /**
   * The receiver's `MAX_BODY_BYTES`: a larger body is answered 413 as soon as `Content-Length` or
   * the bytes received exceed it, and at most this plus one read (64 KiB) is ever held in memory.
   */
  readonly maxBodyBytes: number;
  /** Called with errors the handler throws (answered 502, as API Gateway does). */
  readonly onHandlerError?: (error: unknown) => void;
  /** Called with one line when a client goes away before its request is complete. */
  readonly onClientGone?: (line: string) => void;
  /**
   * Called once per request that reached `/webhook` (or `/webhook/<name>`), after its answer was written and
   * off the request path: nothing it does or throws reaches the answer or the connection.
   */
  readonly onDelivery?: (delivery: ObservedDelivery) => void;
  /** Called with what `onDelivery` threw (an observer's failure, not the handler's). */
  readonly onDeliveryError?: (error: unknown) => void;
  /** Local inspector hook: answers every request under {@link INSPECTOR_PATH}. */
  readonly inspector?: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  /** @default 10000 */
  readonly headersTimeoutMs?: number;
  /** @default 30000 */
  readonly bodyTimeoutMs?: number;
  /**
   * How long {@link WebhookServer.close} waits for the calls under way to be answered before it
   * drops their connections.
   * @default the receiver function's timeout, RECEIVER_TIMEOUT_SECONDS (15 s): the longest a
   *   deployed call may run, within which the handler's own deadlines answer it
   */
  readonly drainTimeoutMs?: number;
}

/** Path prefix of the local delivery inspector (see `local/inspector/`). */
export const INSPECTOR_PATH = '/_inspector';

/** One webhook call as the server saw it: what the delivery inspector shows. */
export interface ObservedDelivery {
  /** The request id the handler got (and the `x-amzn-RequestId` answered). */
  readonly requestId: string;
  /** Arrival time, epoch milliseconds. */
  readonly receivedAt: number;
  readonly method: string;
  /** Request target as sent (path and query). */
  readonly target: string;
  /** Header names and values in the order received. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** The caller's address, as the handler's event carries it (`requestContext.identity.sourceIp`). */
  readonly sourceIp: string;
  readonly statusCode: number;
  readonly responseBody: string;
  /**
   * Why the server answered without reading the body (a 413 decided on `Content-Length` or on the
   * bytes received): `body` is then empty and the inspector shows this instead of a diagnosis.
   */
  readonly bodyNotRead?: string;
}

/** A running local webhook endpoint. */
export interface WebhookServer {
  /** Full webhook URL, e.g. `http://127.0.0.1:3000/webhook`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /**
   * Stops listening, lets the calls under way finish and be answered (each answer closing its
   * connection), at most `drainTimeoutMs`, then ends every connection left.
   */
  close(): Promise<void>;
}

/**
 * Serves the receiver over plain HTTP the way API Gateway fronts it: requests to
 * `/webhook` (or `/webhook/<name>`), or to `/webhook/<name>` with named endpoints (any method, so the handler
 * answers 405 itself) become REST proxy events for
 * `handler`, and its result becomes the response; every other path is 404, a target that is not a
 * path (`*`, absolute-form) is 400, a body over `maxBodyBytes` is 413 and a handler that throws is
 * 502. Each execution environment's handler takes one call at a time, as in Lambda, so each log
 * line of an invocation carries that invocation's request id; with `startEnvironment`, calls
 * arriving while every environment is busy go to new ones, so a call waiting on the queue's disk
 * flush does not hold up the others.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const environments = new Environments(options.handler, options.startEnvironment);
  const invokeInTurn: ProxyHandler = (event, context) => environments.invoke(event, context);
  const connections = new Connections();
  const draining = new Draining(connections);
  const bodies = webhookBodyBudget(options.maxBodyBytes);
  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
      requestTimeout: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
      // Node checks both time-outs on this interval (30 s by default, too coarse for them).
      connectionsCheckingInterval: 250,
    },
    (request, response) =>
      connections.inTurn(request, response, () =>
        draining.track(
          request,
          response,
          serve(
            request,
            response,
            { ...options, handler: invokeInTurn },
            connections,
            bodies,
          ).catch((error: unknown) => {
            if (error instanceof ClientGoneError) {
              options.onClientGone?.(`${request.method} ${request.url}: ${error.message}`);
              response.destroy();
              return;
            }
            options.onHandlerError?.(error);
            if (!response.headersSent) {
              writeJson(response, 502, { message: 'Internal server error' });
            } else response.destroy();
          }),
        ),
      ),
  );
  // `Expect: 100-continue`: left to Node, the interim answer is written as soon as the head
  // arrives, so a body about to be refused (413, 404) is sent anyway, and the interim answer of a
  // pipelined request waiting behind another lands in the middle of the earlier final answer.
  // It is written when the body is read, which is in the request's turn (see Connections).
  continueOnlyToRead(server);
  // A request Node cannot parse, and a CONNECT, are refused once the answers already under way on
  // the connection are out, so no answer is lost behind the refusal.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    connections.afterAnswers(socket, () => endWithJson(socket, unparsableStatus(error))),
  );
  server.on('connect', (_request, socket: Duplex) =>
    connections.afterAnswers(socket, () => endWithJson(socket, 400)),
  );
  const port = await listen(server, options.port, options.host);
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${urlHost}:${port}${webhookPath()}`,
    port,
    close: async () => {
      const closed = closeServer(server, { keepBusy: true });
      await draining.drain(options.drainTimeoutMs ?? RECEIVER_TIMEOUT_SECONDS * 1000);
      server.closeAllConnections();
      await closed;
    },
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: WebhookServerOptions,
  connections: Connections,
  bodies: BodyBudget,
): Promise<void> {
  const target = request.url ?? '';
  // Origin-form only ("/path?query"): `*`, absolute-form and authority-form are not API calls.
  if (!target.startsWith('/')) {
    discardBody(request);
    writeJson(response, 400, { message: 'Bad Request' });
    return;
  }
  const pathname = target.split('?')[0];
  if (options.inspector !== undefined && isInspectorPath(pathname)) {
    continueBody(response);
    await options.inspector(request, response);
    return;
  }
  if (!isWebhookPath(pathname, options.namedEndpoints ?? false)) {
    discardBody(request);
    writeJson(response, 404, { message: 'Not Found' });
    return;
  }
  const requestId = randomUUID();
  const requestTimeEpoch = Date.now();
  const sourceIp = sourceAddress(request.socket.remoteAddress);
  const observe = (
    statusCode: number,
    responseBody: string,
    body: Buffer,
    bodyNotRead?: string,
  ): void =>
    observeDelivery(options, {
      requestId,
      receivedAt: requestTimeEpoch,
      method: request.method ?? 'GET',
      target,
      rawHeaders: request.rawHeaders,
      body,
      sourceIp,
      statusCode,
      responseBody,
      ...(bodyNotRead === undefined ? {} : { bodyNotRead }),
    });
  const read = await readWebhookBody(request, response, options.maxBodyBytes, bodies);
  if (!read.read) {
    // Answered at once without reading the body, like API Gateway; the connection closes after
    // it (see Connections), and the inspector lists the call with its verdict.
    discardBody(request);
    connections.closeAfterAnswer(request.socket);
    response.setHeader('connection', 'close');
    for (const [name, value] of Object.entries(read.headers ?? {})) response.setHeader(name, value);
    response.setHeader('x-amzn-RequestId', requestId);
    writeJson(response, read.statusCode, read.answer);
    observe(read.statusCode, JSON.stringify(read.answer), Buffer.alloc(0), read.bodyNotRead);
    return;
  }
  const { body } = read;
  const event = toApiGatewayEvent(
    {
      method: request.method ?? 'GET',
      target,
      httpVersion: request.httpVersion,
      rawHeaders: request.rawHeaders,
      body,
      sourceIp,
    },
    { requestId, requestTimeEpoch, stage: LOCAL_STAGE },
  );
  const result = await options.handler(event, createLocalContext(requestId, requestTimeEpoch));
  const parts = fromProxyResult(result);
  response.statusCode = parts.statusCode;
  for (const [name, value] of parts.headers) response.appendHeader(name, value);
  response.setHeader('x-amzn-RequestId', requestId);
  response.end(parts.body);
  observe(parts.statusCode, String(parts.body), body);
}

/** Hands a delivery to `onDelivery` off the request path; what it throws is the observer's own. */
function observeDelivery(options: WebhookServerOptions, delivery: ObservedDelivery): void {
  const { onDelivery } = options;
  if (onDelivery === undefined) return;
  setImmediate(() => {
    try {
      onDelivery(delivery);
    } catch (error) {
      options.onDeliveryError?.(error);
    }
  });
}

/** `/webhook`, or with named endpoints `/webhook/<one path segment>`. */
function isWebhookPath(pathname: string | undefined, namedEndpoints: boolean): boolean {
  if (!namedEndpoints) return pathname === webhookPath();
  const prefix = `${webhookPath()}/`;
  const name = pathname?.startsWith(prefix) ? pathname.slice(prefix.length) : '';
  return name !== '' && !name.includes('/');
}

function isInspectorPath(pathname: string | undefined): boolean {
  return pathname === INSPECTOR_PATH || pathname?.startsWith(`${INSPECTOR_PATH}/`) === true;
}

function writeJson(response: ServerResponse, statusCode: number, body: object): void {
  response.writeHead(statusCode, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
