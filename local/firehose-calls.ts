/**
 * The Firehose stand-in of the local archive: `PutRecord` and `PutRecordBatch` in Firehose's
 * JSON protocol, refused as Firehose refuses them, taken into the archive's buffer.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOCAL_ARCHIVE } from '../devkit/local-run.js';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { FIREHOSE_LIMITS } from '../lambda/receiver/archive-record.js';
import type { ArchiveBuffer } from './archive-buffer.js';

/** A Firehose call the stand-in refuses as Firehose would: `type` is Firehose's error name. */
export class FirehoseCallError extends WebhookReceiverError {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

/** The content type of Firehose's JSON protocol. */
export const FIREHOSE_JSON = 'application/x-amz-json-1.1';

/**
 * Longest Firehose request the stand-in reads: the largest PutRecordBatch, base64, with room for
 * the call's JSON around its records.
 */
export const MAX_PUT_REQUEST_BYTES = Math.ceil(FIREHOSE_LIMITS.batchBytes / 3) * 4 + 64 * 1024;

// The Firehose operations the stand-in answers, by their X-Amz-Target.
const FIREHOSE_TARGET = /^Firehose_20150804\.(PutRecord|PutRecordBatch)$/;

/** A request's whole body (bounded in front by `limitRequestBodies`). */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Takes the records of one PutRecord or PutRecordBatch, all or none of them, refusing a call
 * Firehose would refuse; the answer's body once they are buffered.
 */
export async function putRecords<T>(
  buffer: ArchiveBuffer<T>,
  batch: boolean,
  body: Buffer,
): Promise<object> {
  let input: PutInput;
  try {
    input = JSON.parse(body.toString('utf8')) as PutInput;
  } catch {
    throw new FirehoseCallError('SerializationException', 'the request body is not JSON');
  }
  if (typeof input !== 'object' || input === null) {
    throw new FirehoseCallError('SerializationException', 'the request body is not a JSON object');
  }
  if (input.DeliveryStreamName !== LOCAL_ARCHIVE.stream) {
    throw new FirehoseCallError(
      'ResourceNotFoundException',
      `no delivery stream ${input.DeliveryStreamName}`,
    );
  }
  const records = (batch ? input.Records : [input.Record]) ?? [];
  if (!Array.isArray(records) || records.some((record) => typeof record?.Data !== 'string')) {
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

/** The Firehose operation a request calls, or `undefined` for an S3 request. */
export function firehoseOperation(request: IncomingMessage): string | undefined {
  return FIREHOSE_TARGET.exec(String(request.headers['x-amz-target'] ?? ''))?.[1];
}

/** Answers a Firehose call: `body` as Firehose's JSON. */
export function answerFirehose(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': FIREHOSE_JSON });
  response.end(JSON.stringify(body));
}
