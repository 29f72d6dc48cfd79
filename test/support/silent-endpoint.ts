import { createServer, type Socket } from 'node:net';
import { LOOPBACK } from '../../devkit/local-run.js';

/** A loopback endpoint that accepts connections, reads what is sent, and never answers. */
export interface SilentEndpoint {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Stops listening and drops the connections it holds. */
  close(): Promise<void>;
}

/**
 * Starts a {@link SilentEndpoint}: what a hung server, or a firewall that accepts and drops,
 * looks like to a client, which then waits for an answer until its own timeout.
 */
export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://${LOOPBACK}:${port}`,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
