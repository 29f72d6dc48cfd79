import { setTimeout as sleep } from 'node:timers/promises';
import { localArchiveCredentials } from '../devkit/archive-credentials.js';
import { readArchiveWindow } from '../devkit/archive-reader.js';
import { localS3Client } from '../devkit/s3-client.js';
import { LOCAL_ARCHIVE_BUFFER_MS } from '../local/local-archive.js';
import { bodyDigest } from './run-load.js';
import type { ArchivedCall } from './verdict.js';

/** Options of {@link readRunArchive}. */
export interface ReadRunArchiveOptions {
  /** The local archive's bucket, as `npm start` prints it: `http://127.0.0.1:<port>/<bucket>`. */
  readonly archiveUrl: string;
  /** The state folder of that `npm start`, which holds the archive's credentials. */
  readonly stateDir: string;
  /** When the run began: no record of it is older. */
  readonly since: Date;
  /** Whether a body is one of this run's (see `isRunBody`). */
  readonly isOurs: (body: string) => boolean;
  /** Whether the records read so far are all the run's (see `archivedCalls`): the wait ends then. */
  readonly complete: (calls: readonly ArchivedCall[]) => boolean;
  /**
   * Longest wait for the archive's buffer to be written.
   * @default five buffer intervals of the local archive
   */
  readonly waitMs?: number;
}

/**
 * The records of one run's calls answered 200 in a local archive, read through S3 as the replay
 * reads it. `npm start` writes its buffer about a second after a call (see
 * `LOCAL_ARCHIVE_BUFFER_MS`), so the archive is read again until it holds them all (`complete`)
 * or the wait is over; a record still missing then is a delivery the archive lost.
 *
 * @param options - the archive, the run's start, its bodies and what to wait for
 * @throws the SDK's error when the archive cannot be read
 */
export async function readRunArchive(options: ReadRunArchiveOptions): Promise<ArchivedCall[]> {
  const { origin, pathname } = new URL(options.archiveUrl);
  const bucket = pathname.slice(1);
  const s3 = localS3Client(origin, localArchiveCredentials(options.stateDir));
  const deadline = Date.now() + (options.waitMs ?? 5 * LOCAL_ARCHIVE_BUFFER_MS);
  try {
    for (;;) {
      const window = await readArchiveWindow(s3, bucket, {
        from: options.since,
        to: new Date(Date.now() + 1000),
      });
      const calls = window.calls.flatMap(({ record }): ArchivedCall[] => {
        const body = Buffer.from(record.body_base64, 'base64');
        if (record.verdict === 'rejected' || !options.isOurs(body.toString('utf8'))) return [];
        return [{ digest: bodyDigest(body), verdict: record.verdict }];
      });
      if (options.complete(calls) || Date.now() >= deadline) return calls;
      await sleep(LOCAL_ARCHIVE_BUFFER_MS / 4);
    }
  } finally {
    s3.destroy();
  }
}
