/**
 * The archive of `npm start`: an S3-compatible server (`s3rver`) keeping the bucket in the state
 * folder, and on the same loopback port a stand-in for Firehose's `PutRecord` and
 * `PutRecordBatch` (its JSON protocol) that writes the records to that bucket through the S3 API.
 * The receiver runs its production archive code against it (`AWS_ENDPOINT_URL_FIREHOSE`), and the
 * replay tool reads it as it reads the deployed bucket. Like Firehose it buffers records and
 * writes each buffer as one object, after {@link LOCAL_ARCHIVE_BUFFER_MS} instead of Firehose's
 * {@link ARCHIVE_LAYOUT} interval; a put is answered once its record is in the buffer's file in
 * the state folder, so a run killed before the write loses none (see `archive-buffer.ts`).
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import {
  ensureLocalArchiveCredentials,
  type LocalArchiveCredentials,
} from '../devkit/archive-credentials.js';
import {
  isLoopbackHostHeader,
  LOCAL_ARCHIVE,
  LOOPBACK,
  localArchiveEndpoint,
} from '../devkit/local-run.js';
import { localS3Client } from '../devkit/s3-client.js';
import { ARCHIVE_LAYOUT, archiveHourPrefix } from '../lambda/contract/archive-layout.js';
import { ArchiveBuffer } from './archive-buffer.js';
import { s3RequestRefusal } from './archive-requests.js';
import {
  checkAwsSignature,
  escapeUri,
  MAX_PRESIGNED_SECONDS,
  presignedGetUrl,
  targetWithoutSignature,
  UNSIGNED_REFUSAL,
} from './aws-signature.js';
import {
  answerFirehose,
  FIREHOSE_JSON,
  FirehoseCallError,
  firehoseOperation,
  MAX_PUT_REQUEST_BYTES,
  putRecords,
  readBody,
} from './firehose-calls.js';
import {
  BodyBudget,
  catchRequestErrors,
  closeServer,
  continueBody,
  continueOnlyToRead,
  LARGEST_CALLS_AT_ONCE,
  limitRequestBodies,
  listen,
  refuseConnect,
  s3ErrorXml,
} from './net.js';
import { repairS3rver } from './s3rver-patches.js';

/** The folder of the state folder that holds the archive. */
export const ARCHIVE_FOLDER = 'archive';

/**
 * How long the stand-in buffers records before it writes them as one object, instead of
 * Firehose's `ARCHIVE_LAYOUT.bufferSeconds` (its size, `ARCHIVE_LAYOUT.bufferMegabytes`, is kept).
 * A second keeps a delivery's archive link in the inspector prompt, and `npm start` fast: an
 * object written through s3rver for every few puts, before answering them, was most of what a
 * call cost there (the archive's line of `npm run bench -- throughput`'s profile).
 */
export const LOCAL_ARCHIVE_BUFFER_MS = 1000;

/** The content type of S3's error documents. */
const S3_XML = 'application/xml';

/** Options of {@link startLocalArchive}. */
export interface LocalArchiveOptions {
  /** TCP port (0 = any free port). */
  readonly port: number;
  /** The state folder; the bucket is kept in its `archive` folder. */
  readonly stateDir: string;
  /**
   * Called with each record written and its object (the inspector links deliveries to it); an
   * observer, which must not throw (the local run reports the inspector's failures itself).
   */
  readonly onArchived?: (record: Buffer, object: ArchivedObject) => void;
  /**
   * Called when a buffer could not be written (its puts were answered already): its records stay
   * in the state folder and are tried again with the next buffer.
   */
  readonly onWriteError: (error: unknown) => void;
  /**
   * Told once of each failure in one request's handling (the request is answered 500, the
   * archive goes on).
   * @default printing it on stderr
   */
  readonly onRequestError?: (error: unknown) => void;
}

/**
 * An object of the local archive: its key, and a presigned URL of it on the local S3 (path
 * style), which a browser opens without the credentials for {@link ARCHIVE_LINK_SECONDS}.
 */
export interface ArchivedObject {
  readonly key: string;
  readonly url: string;
}

/** How long an {@link ArchivedObject}'s URL opens the object: a week, SigV4's longest. */
export const ARCHIVE_LINK_SECONDS = MAX_PRESIGNED_SECONDS;

/** A running local archive. */
export interface LocalArchive {
  /** `http://127.0.0.1:<port>`: `AWS_ENDPOINT_URL_FIREHOSE`, and the S3 endpoint of the replay. */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  readonly stream: string;
  /** The credentials the port answers (see `localArchiveCredentials`). */
  readonly credentials: LocalArchiveCredentials;
  /** Writes the records buffered so far now; resolves once they were tried. */
  flush(): Promise<void>;
  /** Writes the records buffered, then stops listening (the bucket stays on disk). */
  close(): Promise<void>;
}

/**
 * Longest body of an S3 call other than an object's data, which s3rver holds whole to parse it
 * (DeleteObjects, CompleteMultipartUpload, tagging): the largest of these S3 takes, 1,000 keys
 * of 1,024 bytes to delete, is about 1.1 MB. (A browser form's POST upload is held to it too:
 * no tool uses one, and the port refuses web pages.)
 */
const MAX_S3_XML_BYTES = 2 * 1024 * 1024;

/**
 * Starts the local archive on loopback: S3 for every request, except those addressed to Firehose
 * (`X-Amz-Target: Firehose_20150804.*`). Like the queue it answers only tools on this machine:
 * a request with `Origin`, or for another host, is refused. Every request must be signed (SigV4)
 * with the state folder's credentials (see `ensureLocalArchiveCredentials`), and S3 requests are
 * held to the operations and keys of `archive-requests.ts`; each refusal is answered in its
 * protocol's error format, and a request whose handling fails is answered 500.
 */
export async function startLocalArchive(options: LocalArchiveOptions): Promise<LocalArchive> {
  // npm start has made it (mode 0700, locked); a test's archive may be the first to.
  mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  const credentials = ensureLocalArchiveCredentials(options.stateDir);
  const onRequestError =
    options.onRequestError ??
    ((error: unknown) =>
      console.error('The local archive failed on one request (answered 500):', error));
  const s3rver = new S3rver({
    directory: join(options.stateDir, ARCHIVE_FOLDER),
    silent: true,
    configureBuckets: [{ name: LOCAL_ARCHIVE.bucket, configs: [] }],
  });
  await s3rver.configureBuckets();
  repairS3rver(s3rver, onRequestError);
  const s3 = s3rver.callback();
  let buffer: ArchiveBuffer<ArchivedObject> | undefined;
  // One budget for the port: Firehose calls and the S3 calls whose bodies s3rver holds.
  const budget = new BodyBudget(LARGEST_CALLS_AT_ONCE * MAX_PUT_REQUEST_BYTES);
  const putListener = limitRequestBodies(
    { maxBytes: MAX_PUT_REQUEST_BYTES, budget, contentType: FIREHOSE_JSON },
    async (request, response) => {
      const body = await readBody(request);
      const check = await checkAwsSignature(
        { method: request.method ?? '', url: request.url ?? '/', headers: request.headers, body },
        { credentials, service: 'firehose', now: new Date() },
      );
      if (!check.ok) {
        answerFirehose(response, check.status, { __type: check.code, message: check.message });
        return;
      }
      if (buffer === undefined) {
        answerFirehose(response, 400, {
          __type: 'ServiceUnavailableException',
          message: 'starting',
        });
        return;
      }
      putRecords(buffer, firehoseOperation(request) === 'PutRecordBatch', body).then(
        (answered) => answerFirehose(response, 200, answered),
        (error: unknown) =>
          answerFirehose(response, 400, {
            __type: error instanceof FirehoseCallError ? error.type : 'ServiceUnavailableException',
            message: error instanceof Error ? error.message : String(error),
          }),
      );
    },
  );
  const s3Listener = limitRequestBodies(
    { maxBytes: MAX_S3_XML_BYTES, budget, contentType: S3_XML },
    s3,
  );
  const serveS3 = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = request.url ?? '/';
    const check = await checkAwsSignature(
      { method: request.method ?? '', url, headers: request.headers },
      { credentials, service: 's3', now: new Date() },
    );
    const refusal = check.ok
      ? s3RequestRefusal(request.method ?? '', url, header(request, 'x-amz-copy-source'))
      : check;
    if (refusal !== undefined) {
      request.resume();
      response.writeHead(refusal.status, { 'content-type': S3_XML, connection: 'close' });
      response.end(
        request.method === 'HEAD' ? undefined : s3ErrorXml(refusal.code, refusal.message),
      );
      return;
    }
    // Checked here: s3rver would check its own fixed key, and refuse this archive's.
    delete request.headers.authorization;
    request.url = targetWithoutSignature(url);
    if (isObjectData(request)) {
      continueBody(response);
      s3(request, response);
    } else s3Listener(request, response);
  };
  const server = createServer(
    catchRequestErrors(
      (request, response) => {
        if (request.headers.origin !== undefined || !isLoopbackHostHeader(request.headers.host)) {
          request.resume();
          answerFirehose(response, 403, { __type: 'AccessDenied', message: 'local tools only' });
          return;
        }
        if (firehoseOperation(request) === undefined) return serveS3(request, response);
        if (request.headers.authorization === undefined) {
          // Refused before its body is read.
          request.resume();
          answerFirehose(response, 403, {
            __type: 'MissingAuthenticationTokenException',
            message: UNSIGNED_REFUSAL,
          });
          return;
        }
        return putListener(request, response);
      },
      {
        onError: onRequestError,
        contentType: S3_XML,
        body: s3ErrorXml('InternalError', 'the local archive failed'),
      },
    ),
  );
  continueOnlyToRead(server);
  refuseConnect(server);
  const port = await listen(server, options.port, LOOPBACK);
  const endpoint = localArchiveEndpoint(port);
  const client = localS3Client(endpoint, credentials);
  try {
    // Records a killed run left in the buffer are written before any new put is taken.
    buffer = await ArchiveBuffer.open({
      dir: options.stateDir,
      write: (data, since) => writeObject(client, endpoint, credentials, data, since),
      limits: {
        intervalMs: LOCAL_ARCHIVE_BUFFER_MS,
        maxBytes: ARCHIVE_LAYOUT.bufferMegabytes * 1024 * 1024,
      },
      onWritten: (records, object) => {
        for (const record of records) options.onArchived?.(record, object);
      },
      onError: options.onWriteError,
    });
  } catch (error) {
    await closeServer(server);
    client.destroy();
    throw error;
  }
  const opened = buffer;
  return {
    endpoint,
    port,
    ...LOCAL_ARCHIVE,
    credentials,
    flush: () => opened.flush(),
    close: async () => {
      // The buffer refuses puts from now on (npm start has answered its calls by then) and
      // writes its last records through this server, which goes last.
      try {
        await opened.close();
      } finally {
        await closeServer(server);
        client.destroy();
      }
    },
  };
}

/** Writes one object of the archive as Firehose names it: under the hour of its oldest record. */
async function writeObject(
  client: S3Client,
  endpoint: string,
  credentials: LocalArchiveCredentials,
  data: Buffer,
  since: Date,
): Promise<ArchivedObject> {
  // Firehose's object name: stream, version, time, id.
  const key = `${archiveHourPrefix(since)}${LOCAL_ARCHIVE.stream}-1-${since.toISOString().slice(0, 19).replace(/[T:]/g, '-')}-${randomUUID()}`;
  await client.send(new PutObjectCommand({ Bucket: LOCAL_ARCHIVE.bucket, Key: key, Body: data }));
  const path = `/${LOCAL_ARCHIVE.bucket}/${key.split('/').map(escapeUri).join('/')}`;
  const url = await presignedGetUrl(endpoint, path, credentials, new Date(), ARCHIVE_LINK_SECONDS);
  return { key, url };
}

// The sub-resources whose PUT documents s3rver parses whole; every other PUT is an object's data.
const S3_DOCUMENT_PUTS = ['cors', 'website', 'tagging'];

/**
 * Whether a request carries an object's data (PutObject, UploadPart), which s3rver streams to the
 * disk instead of holding it.
 */
function isObjectData(request: IncomingMessage): boolean {
  if (request.method !== 'PUT') return false;
  const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
  return !S3_DOCUMENT_PUTS.some((name) => query.has(name));
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
