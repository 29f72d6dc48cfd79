import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Duplex, Readable } from 'node:stream';

/** Listens on `host:port` and resolves with the bound port (useful with port 0), or rejects with the listen error (e.g. EADDRINUSE). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops accepting connections and ends open ones (an SQS long poll or keep-alive socket would
 * otherwise hold it open); resolves once every connection has ended. With `keepBusy`, only idle
 * connections are ended (as `server.close` does): the caller ends the others when their calls
 * are answered (`closeAllConnections`).
 */
export function closeServer(
  server: Server,
  { keepBusy = false }: { readonly keepBusy?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    if (!keepBusy) server.closeAllConnections();
  });
}

/**
 * Answers on a connection the HTTP parser has let go of (a request it could not parse, one that
 * ran out of time, a CONNECT) with `{"message": "<reason phrase>"}`, like every other rejection,
 * and closes it; a connection that can no longer be written to is destroyed.
 */
export function endWithJson(socket: Duplex, status: number): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message = STATUS_CODES[status] ?? 'Error';
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${message}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Answers every CONNECT with 400 and closes the connection: a local server is no proxy, and
 * without this Node drops a CONNECT without a byte of answer.
 */
export function refuseConnect(server: Server): void {
  server.on('connect', (_request, socket: Duplex) => endWithJson(socket, 400));
}

/** Answers owed the interim `100 Continue` their request asked for, until its body is read. */
const owedContinue = new WeakSet<ServerResponse>();

/**
 * Makes `server` write the interim `100 Continue` of a request that asked for it
 * (`Expect: 100-continue`) only when its listener decides to read the body
 * ({@link continueBody}), instead of Node's writing it as soon as the head arrives. A refusal
 * (413, 411, 403, 404, 503) is then the only answer: the client sends no body for it, rather than
 * up to megabytes the server drops, and Node closes the connection after it.
 */
export function continueOnlyToRead(server: Server): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    owedContinue.add(response);
    server.emit('request', request, response);
  });
}

/**
 * Writes the `100 Continue` `response`'s request asked for, if it did and it is not out yet:
 * called just before the body is read (see {@link continueOnlyToRead}).
 */
export function continueBody(response: ServerResponse): void {
  if (owedContinue.delete(response)) response.writeContinue();
}

/**
 * The request-body bytes a local AWS stand-in reads at once, all requests together: with a bound
 * per request only, many connections each sending a body just under it (and holding its last
 * byte) would still grow the process without end.
 */
export class BodyBudget {
  readonly #maxBytes: number;
  #taken = 0;

  /** @param maxBytes - bytes the requests under way may declare together */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Takes `bytes` for a request until it or its answer closes, whichever comes first: a server
   * that answers before reading a body drains the rest and drops it, and when its client then
   * goes away the request itself may never emit `close`. False, taking nothing, when they do not
   * fit.
   */
  takeWhileOpen(request: IncomingMessage, response: ServerResponse, bytes: number): boolean {
    if (this.#taken + bytes > this.#maxBytes) return false;
    this.#taken += bytes;
    let given = false;
    const give = (): void => {
      if (given) return;
      given = true;
      this.#taken -= bytes;
    };
    request.once('close', give);
    response.once('close', give);
    return true;
  }
}

/**
 * How many of its largest calls a stand-in reads at once (its {@link BodyBudget} in units of its
 * `maxBytes`): more than the receiver and the tools ever send together.
 */
export const LARGEST_CALLS_AT_ONCE = 8;

/** The bounds {@link limitRequestBodies} keeps. */
export interface BodyLimits {
  /** Longest body one request may declare. */
  readonly maxBytes: number;
  /** What the requests under way may declare together (shared by the listeners given it). */
  readonly budget: BodyBudget;
  /**
   * The content type of the stand-in's error answers: an AWS JSON type, or `application/xml`
   * for S3's error document.
   */
  readonly contentType: string;
}

/**
 * Wraps the request listener of a local AWS stand-in so that the bodies it reads stay bounded,
 * each and all together: any process on this machine can reach the stand-ins, and they (or the
 * libraries they run) hold whole bodies in memory. A request must declare its length, as the
 * AWS SDK always does. One declaring more than `limits.maxBytes` is answered 413, a chunked one
 * 411, and one that does not fit the budget while others are read 503 with `Retry-After` (the
 * SDK retries it); each with an AWS error answer and `connection: close`, and none of its body
 * is kept. A request that asked for `100 Continue` gets it only when its body is read (the server
 * must be set up with {@link continueOnlyToRead}).
 */
export function limitRequestBodies(limits: BodyLimits, listener: RequestListener): RequestListener {
  return (request, response) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    const refusal =
      request.headers['transfer-encoding'] !== undefined
        ? { status: 411, message: 'a request body must declare its Content-Length' }
        : declared > limits.maxBytes
          ? { status: 413, message: `a request body may hold at most ${limits.maxBytes} bytes` }
          : limits.budget.takeWhileOpen(request, response, declared)
            ? undefined
            : { status: 503, message: 'too many request bodies are being read; retry' };
    if (refusal === undefined) {
      continueBody(response);
      listener(request, response);
      return;
    }
    // Read and dropped, not kept, until the connection closes after the answer.
    request.resume();
    response.writeHead(refusal.status, {
      'content-type': limits.contentType,
      connection: 'close',
      ...(refusal.status === 503 ? { 'retry-after': '1' } : {}),
    });
    const code = STATUS_CODES[refusal.status]?.replaceAll(' ', '');
    response.end(
      limits.contentType === 'application/xml'
        ? s3ErrorXml(code ?? 'Error', refusal.message)
        : JSON.stringify({ __type: code, message: refusal.message }),
    );
  };
}

/**
 * Reads each request's body whole before calling `listener`, and hands it a request that gives
 * the body as one chunk. For listeners that join a body chunk by chunk: local-aws-sqs copies the
 * whole body so far for every chunk it gets, so a body trickled in 1 KiB pieces cost it time
 * quadratic in its length. The stand-in request carries the original's headers, method, URL and
 * socket; the body is bounded by {@link limitRequestBodies} in front of this. `refuse` sees the
 * whole body first, and returns true when it answered the request itself (a malformed call).
 */
export function readWholeBody(
  listener: RequestListener,
  refuse?: (request: IncomingMessage, body: Buffer, response: ServerResponse) => boolean,
): RequestListener {
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (refuse?.(request, body, response)) return;
      const whole = Readable.from(body.length === 0 ? [] : [body]);
      const { headers, rawHeaders, method, url, httpVersion, socket } = request;
      listener(
        Object.assign(whole, {
          headers,
          rawHeaders,
          method,
          url,
          httpVersion,
          socket,
        }) as unknown as IncomingMessage,
        response,
      );
    });
  };
}

/** What {@link catchRequestErrors} does with a failure. */
export interface RequestFailureAnswer {
  /** Told each failure once (the local run prints it). */
  readonly onError: (error: unknown) => void;
  /** The content type of the 500 answer, in the server's protocol. */
  readonly contentType: string;
  /** The body of the 500 answer, in the server's protocol's error shape. */
  readonly body: string;
}

/**
 * Wraps a request listener (a library's among them, which may return a promise) so that a
 * failure in one request's handling, thrown or rejected, ends that request only: it is reported
 * once, and answered 500 in the server's protocol when no answer has begun, else its connection
 * is closed. Without it one bad request ended `npm start` with an unhandled rejection.
 */
export function catchRequestErrors(
  listener: (request: IncomingMessage, response: ServerResponse) => unknown,
  answer: RequestFailureAnswer,
): RequestListener {
  const fail = (response: ServerResponse, error: unknown): void => {
    answer.onError(error);
    if (response.headersSent || response.writableEnded) {
      response.destroy();
      return;
    }
    response.writeHead(500, { 'content-type': answer.contentType, connection: 'close' });
    response.end(answer.body);
  };
  return (request, response) => {
    try {
      const result = listener(request, response);
      if (result instanceof Promise) result.catch((error: unknown) => fail(response, error));
    } catch (error) {
      fail(response, error);
    }
  };
}

/** S3's XML error document. */
export function s3ErrorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
