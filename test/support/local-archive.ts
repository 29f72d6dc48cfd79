import { type LocalArchive, startLocalArchive } from '../../local/local-archive.js';

/**
 * The local archive on any free port, as `npm start` runs it. A buffer it cannot write fails the
 * test: `flush` and `close` reject with the error, and a timed write's error is unhandled.
 */
export function startTestArchive(stateDir: string): Promise<LocalArchive> {
  return startLocalArchive({
    port: 0,
    stateDir,
    onWriteError: (error) => {
      throw error;
    },
  });
}
