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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import S3rver, { type S3rverContext, type S3rverStore } from 's3rver';
import {
  isLoopbackHostHeader,
  LOCAL_ARCHIVE,
  LOOPBACK,
  localArchiveEndpoint,
} from '../devkit/local-run.js';
import { localS3Client } from '../devkit/s3-client.js';
import { ARCHIVE_LAYOUT, archiveHourPrefix } from '../lambda/contract/archive-layout.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { FIREHOSE_LIMITS } from '../lambda/receiver/archive-record.js';
import { ArchiveBuffer } from './archive-buffer.js';
import {
  BodyBudget,
  closeServer,
  continueBody,
  continueOnlyToRead,
  LARGEST_CALLS_AT_ONCE,
  limitRequestBodies,
  listen,
  refuseConnect,
} from './net.js';

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

/** A Firehose call the stand-in refuses as Firehose would: `type` is Firehose's error name. */
class FirehoseCallError extends WebhookReceiverError {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** The content type of Firehose's JSON protocol. */
const FIREHOSE_JSON = 'application/x-amz-json-1.1';

/**
 * Longest Firehose request the stand-in reads: the largest PutRecordBatch, base64, with room for
 * the call's JSON around its records.
 */
const MAX_PUT_REQUEST_BYTES = Math.ceil(FIREHOSE_LIMITS.batchBytes / 3) * 4 + 64 * 1024;

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
}

/** An object of the local archive: its key, and its URL on the local S3 (path style). */
export interface ArchivedObject {
  readonly key: string;
  readonly url: string;
}

/** A running local archive. */
export interface LocalArchive {
  /** `http://127.0.0.1:<port>`: `AWS_ENDPOINT_URL_FIREHOSE`, and the S3 endpoint of the replay. */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  readonly stream: string;
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

// The Firehose operations the stand-in answers, by their X-Amz-Target.
const FIREHOSE_TARGET = /^Firehose_20150804\.(PutRecord|PutRecordBatch)$/;

/**
 * Starts the local archive on loopback: S3 for every request, except those addressed to Firehose
 * (`X-Amz-Target: Firehose_20150804.*`). Like the queue it answers only tools on this machine:
 * a request with `Origin`, or for another host, is refused.
 */
export async function startLocalArchive(options: LocalArchiveOptions): Promise<LocalArchive> {
  const s3rver = new S3rver({
    directory: join(options.stateDir, ARCHIVE_FOLDER),
    silent: true,
    configureBuckets: [{ name: LOCAL_ARCHIVE.bucket, configs: [] }],
  });
  await s3rver.configureBuckets();
  pageListingsWithoutDes(s3rver);
  const s3 = s3rver.callback();
  let buffer: ArchiveBuffer<ArchivedObject> | undefined;
  // One budget for the port: Firehose calls and the S3 calls whose bodies s3rver holds.
  const budget = new BodyBudget(LARGEST_CALLS_AT_ONCE * MAX_PUT_REQUEST_BYTES);
  const putListener = limitRequestBodies(
    { maxBytes: MAX_PUT_REQUEST_BYTES, budget, contentType: FIREHOSE_JSON },
    (request, response) => {
      if (buffer === undefined) {
        request.resume();
        answer(response, 400, { __type: 'ServiceUnavailableException', message: 'starting' });
        return;
      }
      putRecords(buffer, request).then(
        (body) => answer(response, 200, body),
        (error: unknown) =>
          answer(response, 400, {
            __type: error instanceof FirehoseCallError ? error.type : 'ServiceUnavailableException',
            message: error instanceof Error ? error.message : String(error),
          }),
      );
    },
  );
  const s3Listener = limitRequestBodies(
    { maxBytes: MAX_S3_XML_BYTES, budget, contentType: 'application/xml' },
    s3,
  );
  const server = createServer((request, response) => {
    if (request.headers.origin !== undefined || !isLoopbackHostHeader(request.headers.host)) {
      request.resume();
      answer(response, 403, { __type: 'AccessDenied', message: 'local tools only' });
      return;
    }
    if (firehoseOperation(request) !== undefined) putListener(request, response);
    else if (isObjectData(request)) {
      continueBody(response);
      s3(request, response);
    } else s3Listener(request, response);
  });
  continueOnlyToRead(server);
  refuseConnect(server);
  const port = await listen(server, options.port, LOOPBACK);
  const endpoint = localArchiveEndpoint(port);
  const client = localS3Client(endpoint);
  try {
    // Records a killed run left in the buffer are written before any new put is taken.
    buffer = await ArchiveBuffer.open({
      dir: options.stateDir,
      write: (data, since) => writeObject(client, endpoint, data, since),
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
  data: Buffer,
  since: Date,
): Promise<ArchivedObject> {
  // Firehose's object name: stream, version, time, id.
  const key = `${archiveHourPrefix(since)}${LOCAL_ARCHIVE.stream}-1-${since.toISOString().slice(0, 19).replace(/[T:]/g, '-')}-${randomUUID()}`;
  await client.send(new PutObjectCommand({ Bucket: LOCAL_ARCHIVE.bucket, Key: key, Body: data }));
  return { key, url: `${endpoint}/${LOCAL_ARCHIVE.bucket}/${key}` };
}

/**
 * Takes the records of one PutRecord or PutRecordBatch, all or none of them, refusing a call
 * Firehose would refuse; the answer's body once they are buffered.
 */
async function putRecords(
  buffer: ArchiveBuffer<ArchivedObject>,
  request: IncomingMessage,
): Promise<object> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let input: PutInput;
  try {
    input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as PutInput;
  } catch {
    throw new FirehoseCallError('SerializationException', 'the request body is not JSON');
  }
  if (input.DeliveryStreamName !== LOCAL_ARCHIVE.stream) {
    throw new FirehoseCallError(
      'ResourceNotFoundException',
      `no delivery stream ${input.DeliveryStreamName}`,
    );
  }
  const batch = firehoseOperation(request) === 'PutRecordBatch';
  const records = (batch ? input.Records : [input.Record]) ?? [];
  if (records.some((record) => typeof record?.Data !== 'string')) {
    throw new FirehoseCallError('ValidationException', 'every record needs its Data');
  }
  const data = records.map((record) => Buffer.from(record?.Data ?? '', 'base64'));
  const refusal = putRefusal(data, batch);
  if (refusal !== undefined) throw new FirehoseCallError('ValidationException', refusal);
  buffer.add(data);
  const ids = records.map(() => randomUUID());
  return batch
    ? {
        FailedPutCount: 0,
        Encrypted: false,
        RequestResponses: ids.map((RecordId) => ({ RecordId })),
      }
    : { RecordId: ids[0], Encrypted: false };
}

/** The JSON body of a PutRecord or PutRecordBatch call. */
interface PutInput {
  readonly DeliveryStreamName?: string;
  readonly Record?: { readonly Data?: string };
  readonly Records?: readonly { readonly Data?: string }[];
}

/** Why Firehose would refuse these records in one call, or `undefined` when it takes them. */
function putRefusal(records: readonly Buffer[], batch: boolean): string | undefined {
  if (records.length === 0 || records.length > FIREHOSE_LIMITS.batchRecords) {
    return `a call holds 1 to ${FIREHOSE_LIMITS.batchRecords} records, not ${records.length}`;
  }
  const largest = Math.max(...records.map((record) => record.length));
  if (largest > FIREHOSE_LIMITS.recordBytes) {
    return `a record holds at most ${FIREHOSE_LIMITS.recordBytes} bytes, not ${largest}`;
  }
  const total = records.reduce((sum, record) => sum + record.length, 0);
  if (batch && total > FIREHOSE_LIMITS.batchBytes) {
    return `a PutRecordBatch holds at most ${FIREHOSE_LIMITS.batchBytes} bytes, not ${total}`;
  }
  return undefined;
}

/**
 * Pages ListObjectsV2 listings of more than 1,000 keys, which s3rver answers InternalError on
 * today's Node: s3rver 3.7.1, its last release, makes a truncated listing's continuation token
 * with DES, which the OpenSSL 3 of Node 17 and later refuses, so `replay` and the load test's
 * archive check failed on any busy hour (the local buffer writes up to an object a second). Run
 * inside s3rver's XML encoder, this takes the listing's truncation from s3rver before it makes a
 * token, and answers one of its own instead: the page's last key, base64url, which comes back as
 * `start-after` (what S3's tokens mean too; they are opaque to clients).
 */
function pageListingsWithoutDes(s3rver: S3rver): void {
  const pageListing = async (ctx: S3rverContext, next: () => Promise<void>): Promise<void> => {
    const { 'continuation-token': token, ...query } = ctx.query;
    if (ctx.method !== 'GET' || query['list-type'] !== '2') return next();
    if (typeof token === 'string') {
      ctx.query = { ...query, 'start-after': Buffer.from(token, 'base64url').toString('utf8') };
    }
    let lastKey: string | undefined;
    const { store } = ctx;
    // The store for this request only, with every other method of the real one (the router's
    // CORS and website middleware read it too).
    ctx.store = Object.assign(Object.create(store) as S3rverStore, {
      listObjects: async (bucket: string, options: unknown) => {
        const listing = await store.listObjects(bucket, options);
        if (!listing.isTruncated) return listing;
        lastKey = listing.objects.at(-1)?.key;
        return { ...listing, isTruncated: false };
      },
    });
    await next();
    const result = (ctx.body as { ListBucketResult?: Record<string, unknown> } | undefined)
      ?.ListBucketResult;
    if (result === undefined) return;
    if (typeof token === 'string') {
      result.ContinuationToken = token;
      result.StartAfter = undefined;
    }
    if (lastKey !== undefined) {
      result.IsTruncated = true;
      result.NextContinuationToken = Buffer.from(lastKey, 'utf8').toString('base64url');
    }
  };
  // Last but the router, which calls the listing: inside the XML encoder, which runs first.
  s3rver.middleware.splice(-1, 0, pageListing);
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

/** The Firehose operation a request calls, or `undefined` for an S3 request. */
function firehoseOperation(request: IncomingMessage): string | undefined {
  return FIREHOSE_TARGET.exec(String(request.headers['x-amz-target'] ?? ''))?.[1];
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': FIREHOSE_JSON });
  response.end(JSON.stringify(body));
}
