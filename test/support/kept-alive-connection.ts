import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One request written on a {@link KeptAliveConnection}. */
export interface RawRequest {
  readonly method: string;
  /** Origin-form target, e.g. `/webhook`. */
  readonly target: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** An answer read off a {@link KeptAliveConnection}. */
export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One TCP connection to an HTTP/1.1 server, kept alive: requests go on it one after the other,
 * as a sender's pooled client sends them, or several at once (pipelined), so a test can tell
 * whether the server kept the connection usable after an answer. Reads answers framed by
 * `Content-Length`, chunked, or by the end of the connection; skips interim (1xx) answers unless
 * asked for them.
 */
export class KeptAliveConnection {
  readonly #socket: Socket;
  #received = Buffer.alloc(0);
  #closed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#received = Buffer.concat([this.#received, chunk]);
      this.#wake?.();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake?.();
    });
    socket.on('error', () => undefined);
  }

  /** Connects to the host and port of `url`. */
  static async open(url: string): Promise<KeptAliveConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    return new KeptAliveConnection(socket);
  }

  /** The `Host` value a client of this connection sends: the server's address and port. */
  get host(): string {
    return `${this.#socket.remoteAddress}:${this.#socket.remotePort}`;
  }

  /**
   * Writes one request and reads its answer.
   *
   * @throws {Error} when the server closes the connection before the whole answer arrived
   */
  async send(request: RawRequest): Promise<RawAnswer> {
    const body = Buffer.from(request.body ?? '');
    const headers = {
      host: this.host,
      connection: 'keep-alive',
      'content-length': String(body.byteLength),
      ...request.headers,
    };
    const head = [
      `${request.method} ${request.target} HTTP/1.1`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join('\r\n');
    this.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]));
    const answer = await this.readAnswer({ head: request.method === 'HEAD' });
    if (answer === undefined) {
      throw new Error(
        `the server closed the connection before answering ${request.method} ${request.target}`,
      );
    }
    return answer;
  }

  /** Writes bytes as they are: one request or several, whole or cut short. */
  write(bytes: Uint8Array): void {
    if (!this.#socket.destroyed) this.#socket.write(bytes);
  }

  /**
   * Reads the next final answer; `undefined` when the connection closed before it was complete.
   *
   * @param options - `head`: the answer is to a HEAD request, so it has no body; `interim`: an
   *   interim answer (`100 Continue`) counts too, so a test sees whether one came first
   */
  async readAnswer(
    options: { readonly head?: boolean; readonly interim?: boolean } = {},
  ): Promise<RawAnswer | undefined> {
    for (;;) {
      const answer = this.#takeAnswer(options.head ?? false, options.interim ?? false);
      if (answer !== undefined) return answer;
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Resolves once the server has closed the connection, or after `ms`; whether it closed. */
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.#closed && Date.now() < deadline) {
      const timer = setTimeout(() => this.#wake?.(), deadline - Date.now());
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      clearTimeout(timer);
    }
    return this.#closed;
  }

  /** Whether the server has closed the connection. */
  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#socket.destroy();
  }

  /** The first complete final answer received, taken off the buffer, or `undefined` while incomplete. */
  #takeAnswer(head: boolean, interim: boolean): RawAnswer | undefined {
    for (;;) {
      const end = this.#received.indexOf('\r\n\r\n');
      if (end === -1) return undefined;
      const [statusLine = '', ...lines] = this.#received.subarray(0, end).toString().split('\r\n');
      const status = Number(statusLine.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      const rest = this.#received.subarray(end + 4);
      if (status >= 100 && status < 200) {
        // An interim answer (100 Continue): the final one follows.
        this.#received = rest;
        if (interim) return { status, headers, body: '' };
        continue;
      }
      const framed = bodyOf(rest, headers, head || status === 204 || status === 304, this.#closed);
      if (framed === undefined) return undefined;
      this.#received = rest.subarray(framed.used);
      return { status, headers, body: framed.body.toString() };
    }
  }
}

/** The body at the start of `bytes` and the bytes it took, or `undefined` while incomplete. */
function bodyOf(
  bytes: Buffer,
  headers: Readonly<Record<string, string>>,
  empty: boolean,
  closed: boolean,
): { readonly body: Buffer; readonly used: number } | undefined {
  if (empty) return { body: Buffer.alloc(0), used: 0 };
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) return chunkedBody(bytes);
  const length = headers['content-length'];
  if (length !== undefined) {
    const size = Number(length);
    return bytes.byteLength < size ? undefined : { body: bytes.subarray(0, size), used: size };
  }
  // Neither: the body runs to the end of the connection.
  return closed ? { body: bytes, used: bytes.byteLength } : undefined;
}

function chunkedBody(bytes: Buffer): { readonly body: Buffer; readonly used: number } | undefined {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString(), 16);
    const start = lineEnd + 2;
    if (size === 0) {
      const trailerEnd = bytes.indexOf('\r\n', start);
      return trailerEnd === -1 ? undefined : { body: Buffer.concat(chunks), used: trailerEnd + 2 };
    }
    if (bytes.byteLength < start + size + 2) return undefined;
    chunks.push(bytes.subarray(start, start + size));
    at = start + size + 2;
  }
}
