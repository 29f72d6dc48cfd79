import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The IPv4 loopback address: local servers listen here unless told otherwise. */
export const LOOPBACK = '127.0.0.1';

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

/** Stops accepting connections and ends open ones (an SQS long poll or keep-alive socket would otherwise hold it open). */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
