import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The calls under way, so that stopping the server answers them before it closes the queue and
 * the archive they write to (a sender would otherwise see its connection dropped, and retry a
 * call whose message may already be queued).
 */
export class Draining {
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

/**
 * Serves the requests of each connection one after the other, as HTTP/1.1 answers them. Node
 * emits every request it parses at once, pipelined ones too: without turns, a request after an
 * answer that closes the connection (a 413, or Node's own `connection: close`) would reach the
 * handler (and be queued) with its answer thrown away, and a parse error or a CONNECT would be
 * refused ahead of an earlier answer, which the client then never reads.
 */
export class Connections {
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
 * The status for a request Node cannot parse (an authority-form target, a broken header: 400, a
 * header section too large: 431) or that ran out of time (408); it gets a JSON answer like every
 * other rejection, then the connection is closed.
 */
export function unparsableStatus(error: NodeJS.ErrnoException): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
}
