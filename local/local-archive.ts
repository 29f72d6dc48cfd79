/**
 * The archive of `npm start`: an S3-compatible server (`s3rver`) keeping the bucket in the state
 * folder, and on the same loopback port a stand-in for Firehose's `PutRecord` and
 * `PutRecordBatch` (its JSON protocol) that writes each record to that bucket through the S3 API.
 * The receiver runs its production archive code against it (`AWS_ENDPOINT_URL_FIREHOSE`), and the
 * replay tool reads it as it reads the deployed bucket. Like Firehose it writes several records
 * to one object, but without its buffering delay: records that arrive while an object is being
 * written go together into the next one, and a put is answered once its record's object is
 * written, so a delivery is in the archive before its answer is sent.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import {
  isLoopbackHostHeader,
  LOCAL_ARCHIVE,
  LOOPBACK,
  localArchiveEndpoint,
} from '../devkit/local-run.js';
import { localS3Client } from '../devkit/s3-client.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { archiveHourPrefix } from '../lambda/receiver/archive-record.js';
import { closeServer, listen, refuseConnect } from './net.js';

/** The folder of the state folder that holds the archive. */
export const ARCHIVE_FOLDER = 'archive';

/** A Firehose call the stand-in cannot take (answered as Firehose's ServiceUnavailableException). */
class UnknownDeliveryStreamError extends WebhookReceiverError {}

/** Options of {@link startLocalArchive}. */
export interface LocalArchiveOptions {
  /** TCP port (0 = any free port). */
  readonly port: number;
  /** The state folder; the bucket is kept in its `archive` folder. */
  readonly stateDir: string;
  /** Called with each record written and its object (the inspector links deliveries to it). */
  readonly onArchived?: (record: Buffer, object: ArchivedObject) => void;
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
  /** Stops listening (the bucket stays on disk). */
  close(): Promise<void>;
}

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
  const s3 = s3rver.callback();
  let endpoint = '';
  let client: S3Client | undefined;
  let writer: GroupWriter | undefined;
  const server = createServer((request, response) => {
    if (request.headers.origin !== undefined || !isLoopbackHostHeader(request.headers.host)) {
      request.resume();
      answer(response, 403, { __type: 'AccessDenied', message: 'local tools only' });
      return;
    }
    const target = FIREHOSE_TARGET.exec(String(request.headers['x-amz-target'] ?? ''))?.[1];
    if (target === undefined) {
      s3(request, response);
      return;
    }
    client ??= localS3Client(endpoint);
    const s3Client = client;
    writer ??= new GroupWriter((data) => writeObject(s3Client, endpoint, data), options.onArchived);
    putRecords(writer, target, request).then(
      (body) => answer(response, 200, body),
      (error: unknown) =>
        answer(response, 400, {
          __type: 'ServiceUnavailableException',
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  refuseConnect(server);
  const port = await listen(server, options.port, LOOPBACK);
  endpoint = localArchiveEndpoint(port);
  return {
    endpoint,
    port,
    ...LOCAL_ARCHIVE,
    close: async () => {
      // The writer saves objects through this server: let it finish before the server goes.
      await writer?.idle();
      await closeServer(server);
      client?.destroy();
    },
  };
}

/** A record waiting for its object to be written. */
interface WaitingRecord {
  readonly data: Buffer;
  readonly written: (object: ArchivedObject) => void;
  readonly failed: (error: unknown) => void;
}

/**
 * Writes records in groups: one object at a time, holding every record that arrived while the
 * previous one was being written. Under load a put costs a share of one S3 write instead of one
 * each, and every put still waits for its own record to be on disk.
 */
class GroupWriter {
  private waiting: WaitingRecord[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly write: (data: Buffer) => Promise<ArchivedObject>,
    private readonly onArchived: LocalArchiveOptions['onArchived'],
  ) {}

  /** Resolves with the object holding `data` once it is written. */
  add(data: Buffer): Promise<ArchivedObject> {
    return new Promise((written, failed) => {
      this.waiting.push({ data, written, failed });
      // Started on the next microtask, so the records of one PutRecordBatch share an object.
      this.writing ??= Promise.resolve().then(() => this.drain());
    });
  }

  /** Resolves when every record added so far is written (or failed). */
  async idle(): Promise<void> {
    await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      let object: ArchivedObject;
      try {
        object = await this.write(Buffer.concat(group.map(({ data }) => data)));
      } catch (error) {
        for (const record of group) record.failed(error);
        continue;
      }
      for (const record of group) {
        record.written(object);
        try {
          this.onArchived?.(record.data, object);
        } catch {
          // An observer (the inspector's link) never fails a record that is written.
        }
      }
    }
    this.writing = undefined;
  }
}

/** Writes one object of the archive under the hour prefix Firehose would use; its key and URL. */
async function writeObject(
  client: S3Client,
  endpoint: string,
  data: Buffer,
): Promise<ArchivedObject> {
  const now = new Date();
  // Firehose's object name: stream, version, time, id.
  const key = `${archiveHourPrefix(now)}${LOCAL_ARCHIVE.stream}-1-${now.toISOString().slice(0, 19).replace(/[T:]/g, '-')}-${randomUUID()}`;
  await client.send(new PutObjectCommand({ Bucket: LOCAL_ARCHIVE.bucket, Key: key, Body: data }));
  return { key, url: `${endpoint}/${LOCAL_ARCHIVE.bucket}/${key}` };
}

/** Takes the records of one PutRecord or PutRecordBatch; the answer's body once they are written. */
async function putRecords(
  writer: GroupWriter,
  target: string,
  request: IncomingMessage,
): Promise<object> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    DeliveryStreamName?: string;
    Record?: { Data?: string };
    Records?: { Data?: string }[];
  };
  if (input.DeliveryStreamName !== LOCAL_ARCHIVE.stream) {
    throw new UnknownDeliveryStreamError(`no delivery stream ${input.DeliveryStreamName}`);
  }
  const records = target === 'PutRecord' ? [input.Record] : (input.Records ?? []);
  await Promise.all(records.map((record) => writer.add(Buffer.from(record?.Data ?? '', 'base64'))));
  const ids = records.map(() => randomUUID());
  return target === 'PutRecord'
    ? { RecordId: ids[0], Encrypted: false }
    : {
        FailedPutCount: 0,
        Encrypted: false,
        RequestResponses: ids.map((RecordId) => ({ RecordId })),
      };
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
}
