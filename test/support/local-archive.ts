import {
  type LocalArchive,
  type LocalArchiveOptions,
  startLocalArchive,
} from '../../local/local-archive.js';

/**
 * The local archive on any free port, as `npm start` runs it, calling `onArchived` with each
 * record written and its object. A buffer it cannot write fails the test: `flush` and `close`
 * reject with the error, and a timed write's error is unhandled.
 */
export function startTestArchive(
  stateDir: string,
  onArchived?: LocalArchiveOptions['onArchived'],
): Promise<LocalArchive> {
  return startLocalArchive({
    port: 0,
    stateDir,
    ...(onArchived === undefined ? {} : { onArchived }),
    onWriteError: (error) => {
      throw error;
    },
  });
}
