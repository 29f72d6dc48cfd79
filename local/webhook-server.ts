import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { webhookPath } from '../lambda/contract/endpoints.js';
import { RECEIVER_TIMEOUT_SECONDS } from '../lambda/contract/settings.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { fromProxyResult, toApiGatewayEvent } from './api-gateway-event.js';
import { createLocalContext } from './lambda-context.js';
import {
  BodyBudget,
  closeServer,
  continueBody,
  continueOnlyToRead,
  endWithJson,
  listen,
} from './net.js';

/** Longest a client may take to send the request line and headers (slowloris guard). */
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** Longest a client may take to send the whole request, body included. */
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** What the receiver answers a body over `MAX_BODY_BYTES`; the server answers it the same way. */
const PAYLOAD_TOO_LARGE = { error: 'payload_too_large', reason: 'payload_too_large' } as const;

/** API Gateway's answer when it throttles a call: the server's answer beyond its body budget. */
const TOO_MANY_REQUESTS = { message: 'Too Many Requests' } as const;

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

/**
 * Most execution environments the local server runs at once: above the connections the load
 * test and the throughput bench open (16 and 10), so neither waits for one, while a flood of
 * connections cannot start handlers without bound.
 */
export const MAX_ENVIRONMENTS = 32;

/**
 * How many bodies of `MAX_BODY_BYTES` the server reads at once, all connections together (64):
 * every environment busy and as many bodies arriving behind them. Any process on this machine
 * can open connections, and with a bound per body only, each one holding a body just under it
 * for the 30 s the server waits grew the process without end (1,500 connections: 121 MB to
 * 513 MB).
 */
const LARGEST_BODIES_AT_ONCE = 2 * MAX_ENVIRONMENTS;

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

/** A client closed its connection before the whole request arrived. */
class ClientGoneError extends WebhookReceiverError {
  constructor() {
    super('client disconnected before the request was complete');
  }
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
  const bodies = new BodyBudget(LARGEST_BODIES_AT_ONCE * options.maxBodyBytes);
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

/**
 * The calls under way, so that stopping the server answers them before it closes the queue and
 * the archive they write to (a sender would otherwise see its connection dropped, and retry a
 * call whose message may already be queued).
 */
class Draining {
  /** Each call being served, with what settles once its answer is out. */
  readonly #underWay = new Map<
    ServerResponse,
    { readonly request: IncomingMessage; readonly answered: Promise<void> }
  >();
  #stopping = false;
  readonly #connections: Connections;

  constructor(connections: Connections) {
    this.#connections = connections;
  }

  /** Keeps the call among the calls under way until it is answered; returns `call`. */
  track(request: IncomingMessage, response: ServerResponse, call: Promise<void>): Promise<void> {
    if (this.#stopping) this.#closeAfter(request, response);
    const answered = call.then(
      () => sent(response),
      () => sent(response),
    );
    this.#underWay.set(response, { request, answered });
    void answered.then(() => this.#underWay.delete(response));
    return call;
  }

  /**
   * Stops: every answer not yet started will close its connection (so no request behind it on
   * the connection is taken), a call whose request is still arriving is dropped (nothing was
   * handled; its sender retries), and this resolves once every other call is answered, or after
   * `timeoutMs`, whichever comes first.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    for (const [response, { request }] of this.#underWay) {
      if (request.complete) this.#closeAfter(request, response);
      else request.socket.destroy();
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), timeoutMs);
    });
    try {
      // A request whose turn came on its connection while waiting is waited for too.
      while (this.#underWay.size > 0) {
        const answered = Promise.all([...this.#underWay.values()].map((call) => call.answered));
        if (await Promise.race([answered.then(() => false), timedOut])) return;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Makes an answer not yet started close its connection, and takes nothing after it on that
   * connection (the header alone does not stop Node from parsing a request pipelined behind).
   */
  #closeAfter(request: IncomingMessage, response: ServerResponse): void {
    if (response.headersSent) return;
    response.setHeader('connection', 'close');
    this.#connections.closeAfterAnswer(request.socket);
  }
}

/**
 * Settles once an ended answer is written out (or its connection gone); at once for one never
 * ended, such as the inspector's live stream, which the inspector ends itself.
 */
function sent(response: ServerResponse): Promise<void> {
  if (!response.writableEnded || response.writableFinished || response.destroyed) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    response.once('finish', resolve);
    response.once('close', resolve);
  });
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
  const sourceIp = sourceAddress(request.socket);
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
  // Answered at once without reading the body, like API Gateway; the connection closes after it
  // (see Connections), and the inspector lists the call with its verdict.
  const answerUnread = (
    statusCode: number,
    answer: object,
    bodyNotRead: string,
    headers: Readonly<Record<string, string>> = {},
  ): void => {
    discardBody(request);
    connections.closeAfterAnswer(request.socket);
    response.setHeader('connection', 'close');
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.setHeader('x-amzn-RequestId', requestId);
    writeJson(response, statusCode, answer);
    observe(statusCode, JSON.stringify(answer), Buffer.alloc(0), bodyNotRead);
  };
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > options.maxBodyBytes) {
    answerUnread(
      413,
      PAYLOAD_TOO_LARGE,
      `the body was not read: its Content-Length (${declared} bytes) is above MAX_BODY_BYTES (${options.maxBodyBytes})`,
    );
    return;
  }
  // A chunked body may grow to the limit, so that much is held for it.
  const held = request.headers['transfer-encoding'] === undefined ? declared : options.maxBodyBytes;
  if (!bodies.takeWhileOpen(request, response, held)) {
    // A sender retries a 429 as it would a throttled call.
    answerUnread(
      429,
      TOO_MANY_REQUESTS,
      `the body was not read: ${LARGEST_BODIES_AT_ONCE} bodies of up to MAX_BODY_BYTES were being read`,
      { 'retry-after': '1' },
    );
    return;
  }
  continueBody(response);
  const body = await readBody(request, options.maxBodyBytes);
  if (body === undefined) {
    answerUnread(
      413,
      PAYLOAD_TOO_LARGE,
      `the body was not read past MAX_BODY_BYTES (${options.maxBodyBytes} bytes)`,
    );
    return;
  }
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

/**
 * The execution environments of the local run: each takes one call at a time, an idle one (the
 * most recently used, as Lambda reuses warm environments) takes the next call, another is
 * started while every one is busy and fewer than {@link MAX_ENVIRONMENTS} run, and beyond that
 * calls wait for the first free one in arrival order.
 */
class Environments {
  readonly #idle: ProxyHandler[];
  readonly #waiting: Array<(handler: ProxyHandler) => void> = [];
  readonly #start: (() => ProxyHandler) | undefined;
  #started = 1;

  constructor(first: ProxyHandler, start: (() => ProxyHandler) | undefined) {
    this.#idle = [first];
    this.#start = start;
  }

  async invoke(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
    const handler = this.#idle.pop() ?? this.#another() ?? (await this.#free());
    try {
      return await handler(event, context);
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#idle.push(handler);
      else next(handler);
    }
  }

  /** A new environment's handler, or `undefined` when no more may be started. */
  #another(): ProxyHandler | undefined {
    if (this.#start === undefined || this.#started >= MAX_ENVIRONMENTS) return undefined;
    const handler = this.#start();
    this.#started += 1;
    return handler;
  }

  #free(): Promise<ProxyHandler> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}

/**
 * Serves the requests of each connection one after the other, as HTTP/1.1 answers them. Node
 * emits every request it parses at once, pipelined ones too: without turns, a request after an
 * answer that closes the connection (a 413, or Node's own `connection: close`) would reach the
 * handler (and be queued) with its answer thrown away, and a parse error or a CONNECT would be
 * refused ahead of an earlier answer, which the client then never reads.
 */
class Connections {
  /** Per connection, its requests whose answers are not out yet, oldest first. */
  readonly #pending = new WeakMap<
    Duplex,
    Array<{ request: IncomingMessage; answered: Promise<void> }>
  >();
  /** Connections whose latest answer closes them: HTTP forbids processing what follows. */
  readonly #closing = new WeakSet<Duplex>();

  /**
   * Runs `serve` once every earlier answer on the request's connection is out; drops the request
   * unread when one of them closed the connection.
   */
  inTurn(request: IncomingMessage, response: ServerResponse, serve: () => void): void {
    const { socket } = request;
    const pending = this.#pending.get(socket) ?? [];
    this.#pending.set(socket, pending);
    const previous = pending.at(-1)?.answered ?? Promise.resolve();
    const entry = {
      request,
      answered: new Promise<void>((resolve) =>
        response.once('close', () => {
          if (!response.shouldKeepAlive) this.#closing.add(socket);
          pending.splice(pending.indexOf(entry), 1);
          resolve();
        }),
      ),
    };
    pending.push(entry);
    void previous.then(() => {
      // A connection closed by an earlier answer, or ended by the server stopping: the request
      // is dropped unhandled, and its sender, which got no answer, retries it.
      if (this.#closing.has(socket) || socket.destroyed) {
        request.resume();
        return;
      }
      serve();
    });
  }

  /** Marks a connection whose current answer says it closes: nothing after it is processed. */
  closeAfterAnswer(socket: Duplex): void {
    this.#closing.add(socket);
  }

  /**
   * Runs `then` once the answers to the requests received whole on `socket` are out (at once when
   * there are none): for a parse error, a time-out or a CONNECT, which concern the request still
   * arriving, after which Node parses nothing more on the connection.
   */
  afterAnswers(socket: Duplex, then: () => void): void {
    const whole = (this.#pending.get(socket) ?? []).filter(({ request }) => request.complete);
    if (whole.length === 0) then();
    else void Promise.all(whole.map(({ answered }) => answered)).then(then);
  }
}

/**
 * The caller's address as API Gateway reports it, for `ALLOWED_SOURCE_IPS` and the inspector: an
 * IPv4 caller of a dual-stack socket (`HOST=::`) without its `::ffff:` prefix. A socket that is
 * already gone has no address: empty then, which no allowlist lets in (never a stand-in such as
 * 127.0.0.1, which a list for local tries would let in).
 */
function sourceAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice('::ffff:'.length) : address;
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

/**
 * Reads the whole body; resolves `undefined` as soon as more than `limit` bytes arrived (keeping
 * at most `limit` plus the last chunk), rejects with {@link ClientGoneError} when the client goes.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('close', () => {
      if (!request.complete) reject(new ClientGoneError());
    });
  });
}

/** Reads and drops what is left of a request body, so the answer can be sent without buffering it. */
function discardBody(request: IncomingMessage): void {
  request.on('data', () => undefined);
  request.resume();
}

/**
 * The status for a request Node cannot parse (an authority-form target, a broken header: 400, a
 * header section too large: 431) or that ran out of time (408); it gets a JSON answer like every
 * other rejection, then the connection is closed.
 */
function unparsableStatus(error: NodeJS.ErrnoException): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
}

function writeJson(response: ServerResponse, statusCode: number, body: object): void {
  response.writeHead(statusCode, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
