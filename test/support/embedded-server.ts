import type { Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

/**
 * Stops an embedded AWS emulator: destroys the client pointed at it, drops its keep-alive
 * connections (else `close` waits for them) and closes the server.
 *
 * @param server - the emulator's HTTP server
 * @param client - the SDK client pointed at it
 */
export function closeEmbeddedServer(server: Server, client: { destroy(): void }): Promise<void> {
  return new Promise((resolve, reject) => {
    client.destroy();
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });
}

/**
 * One running emulator for the enclosing `describe` block, started before its first test and
 * stopped after its last.
 *
 * @param start - starts the emulator
 * @param name - the calling helper, for the error when used outside a test or hook
 * @returns the running emulator (call it inside tests and hooks)
 */
export function useForBlock<T extends { close(): Promise<void> }>(
  start: () => Promise<T>,
  name: string,
): () => T {
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(async () => {
    await running?.close();
  });
  return () => {
    if (running === undefined) throw new Error(`${name}: the server starts in beforeAll`);
    return running;
  };
}
