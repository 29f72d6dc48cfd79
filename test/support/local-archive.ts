import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
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

/** Writes one archive object holding `lines`, one per line, as Firehose would. */
export function putArchiveObject(
  s3: S3Client,
  bucket: string,
  key: string,
  lines: readonly string[],
): Promise<unknown> {
  const Body = lines.map((line) => `${line}\n`).join('');
  // The length given: the SDK warns of a stream of unknown length for an empty body.
  return s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body,
      ContentLength: Buffer.byteLength(Body),
    }),
  );
}

/** Counts the `ListObjectsV2` calls `s3` makes: `count()` says how many since the last `reset()`. */
export function countListings(s3: S3Client): { count(): number; reset(): void } {
  let listings = 0;
  s3.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'ListObjectsV2Command') listings++;
      return next(args);
    },
    { step: 'initialize' },
  );
  return {
    count: () => listings,
    reset: () => {
      listings = 0;
    },
  };
}
