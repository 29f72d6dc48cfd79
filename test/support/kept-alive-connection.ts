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
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One TCP connection to an HTTP/1.1 server, kept alive: requests go on it one after the other,
 * as a sender's pooled client sends them, so a test can tell whether the server kept the
 * connection usable after an answer. Reads answers framed by `Content-Length`.
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

  /**
   * Writes one request and reads its answer.
   *
   * @throws {Error} when the server closes the connection before the whole answer arrived
   */
  async send(request: RawRequest): Promise<RawAnswer> {
    const body = Buffer.from(request.body ?? '');
    const headers = {
      host: `${this.#socket.remoteAddress}:${this.#socket.remotePort}`,
      connection: 'keep-alive',
      'content-length': String(body.byteLength),
      ...request.headers,
    };
    const head = [
      `${request.method} ${request.target} HTTP/1.1`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join('\r\n');
    this.#socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]));
    for (;;) {
      const answer = this.#takeAnswer();
      if (answer !== undefined) return answer;
      if (this.#closed) {
        throw new Error(
          `the server closed the connection before answering ${request.method} ${request.target}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  /** Whether the server has closed the connection. */
  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#socket.destroy();
  }

  /** The first complete answer received, taken off the buffer, or `undefined` while incomplete. */
  #takeAnswer(): RawAnswer | undefined {
    const end = this.#received.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = this.#received.subarray(0, end).toString().split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    const total = end + 4 + length;
    if (this.#received.byteLength < total) return undefined;
    const body = this.#received.subarray(end + 4, total).toString();
    this.#received = this.#received.subarray(total);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}
