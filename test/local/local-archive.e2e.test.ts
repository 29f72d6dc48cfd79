import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FirehoseClient,
  PutRecordBatchCommand,
  PutRecordCommand,
  type PutRecordCommandInput,
} from '@aws-sdk/client-firehose';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { localS3Client } from '../../devkit/s3-client.js';
import { FIREHOSE_LIMITS } from '../../lambda/receiver/archive-record.js';
import { LOCAL_ARCHIVE_BUFFER_MS } from '../../local/local-archive.js';
import { signedHeaderLines } from '../support/aws-signed-head.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';
import { startTestArchive } from '../support/local-archive.js';
import { LOCAL_AWS_SETTINGS } from '../support/local-sqs.js';
import { scratchDir } from '../support/scratch-dir.js';

const stateDir = scratchDir('local-archive');

/** A record as the receiver writes one: a JSON line. */
const record = (index: number) => Buffer.from(`${JSON.stringify({ index })}\n`);

describe('Function: startLocalArchive', () => {
  it('keeps every put it answered through a close, and refuses those that come after it began', async () => {
    // Prepare
    const folder = join(stateDir(), 'close');
    const archive = await startTestArchive(folder);
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });

    // Act: 200 puts in flight, and close as soon as the first is answered.
    const puts = Array.from({ length: 200 }, (_, index) =>
      firehose.send(
        new PutRecordCommand({
          DeliveryStreamName: archive.stream,
          Record: { Data: record(index) },
        }),
      ),
    );
    await Promise.race(puts);
    const closed = archive.close();
    const answers = await Promise.allSettled(puts);
    await closed;
    firehose.destroy();

    // Assess: every put answered is written, read back from the state folder.
    const reopened = await startTestArchive(folder);
    const s3 = localS3Client(reopened.endpoint, reopened.credentials);
    const lines = await countLines(s3, reopened.bucket);
    s3.destroy();
    await reopened.close();
    const taken = answers.filter((answer) => answer.status === 'fulfilled');
    const refused = answers.flatMap((answer) =>
      answer.status === 'rejected' ? [(answer.reason as Error).name] : [],
    );
    expect(taken.length).toBeGreaterThan(0);
    expect(lines).toBe(taken.length);
    expect(refused.filter((name) => name !== 'ServiceUnavailableException')).toEqual([]);
  });

  it('writes every record it answered while puts keep coming through several buffer writes', async () => {
    // Prepare
    const folder = join(stateDir(), 'steady');
    const timedWrites = new Set<string>();
    const archive = await startTestArchive(folder, (_, object) => timedWrites.add(object.key));
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });
    let answered = 0;
    const put = async () => {
      await firehose.send(
        new PutRecordCommand({
          DeliveryStreamName: archive.stream,
          Record: { Data: record(answered) },
        }),
      );
      answered += 1;
    };

    // Act: one put after the other for two and a half buffer intervals, and on until the buffer
    // has written twice on its own (its timer runs late on a loaded machine), then one more for
    // a third object.
    const until = Date.now() + 2.5 * LOCAL_ARCHIVE_BUFFER_MS;
    const giveUpAt = Date.now() + 10 * LOCAL_ARCHIVE_BUFFER_MS;
    while ((Date.now() < until || timedWrites.size < 2) && Date.now() < giveUpAt) await put();
    await put();
    const writtenBeforeClose = timedWrites.size;
    await archive.close();
    firehose.destroy();

    // Assess
    const reopened = await startTestArchive(folder);
    const s3 = localS3Client(reopened.endpoint, reopened.credentials);
    const objects = await s3.send(new ListObjectsV2Command({ Bucket: reopened.bucket }));
    const lines = await countLines(s3, reopened.bucket);
    s3.destroy();
    await reopened.close();
    expect(writtenBeforeClose).toBeGreaterThanOrEqual(2);
    expect(objects.Contents?.length).toBeGreaterThanOrEqual(3);
    expect(lines).toBe(answered);
  });

  it('writes the records put within its buffer interval to one object, without being asked', async () => {
    // Prepare
    const archive = await startTestArchive(join(stateDir(), 'buffer'));
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const objects = async () =>
      (await s3.send(new ListObjectsV2Command({ Bucket: archive.bucket }))).Contents ?? [];

    // Act: a batch of 3 and 17 single puts, all answered before the buffer is written.
    const batch = await firehose.send(
      new PutRecordBatchCommand({
        DeliveryStreamName: archive.stream,
        Records: [0, 1, 2].map((index) => ({ Data: record(index) })),
      }),
    );
    await Promise.all(
      Array.from({ length: 17 }, (_, index) =>
        firehose.send(
          new PutRecordCommand({
            DeliveryStreamName: archive.stream,
            Record: { Data: record(3 + index) },
          }),
        ),
      ),
    );
    const answered = Date.now();
    let lines = 0;
    while (lines < 20 && Date.now() - answered < LOCAL_ARCHIVE_BUFFER_MS + 5_000) {
      await sleep(50);
      lines = await countLines(s3, archive.bucket);
    }
    const writtenAfterMs = Date.now() - answered;
    const written = await objects();
    firehose.destroy();
    s3.destroy();
    await archive.close();

    // Assess
    expect(batch.FailedPutCount).toBe(0);
    expect(written).toHaveLength(1);
    expect(writtenAfterMs).toBeLessThan(LOCAL_ARCHIVE_BUFFER_MS + 2_000);
    expect(lines).toBe(20);
  });

  it('refuses what Firehose refuses, whole, and keeps only the records of the calls it answered', async () => {
    // Prepare
    const archive = await startTestArchive(join(stateDir(), 'limits'));
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const { recordBytes, batchRecords, batchBytes } = FIREHOSE_LIMITS;
    const line = (bytes: number) => Buffer.from(`${'x'.repeat(bytes - 1)}\n`);
    const putBatch = (records: Buffer[]) =>
      firehose
        .send(
          new PutRecordBatchCommand({
            DeliveryStreamName: archive.stream,
            Records: records.map((Data) => ({ Data })),
          }),
        )
        .then(
          () => 'taken',
          (error: Error) => error.name,
        );
    const putRecord = (Data: Buffer, DeliveryStreamName = archive.stream) =>
      firehose.send(new PutRecordCommand({ DeliveryStreamName, Record: { Data } })).then(
        () => 'taken',
        (error: Error) => error.name,
      );
    const oversize = await KeptAliveConnection.open(archive.endpoint);

    // Act
    const answers = {
      largestRecord: await putRecord(line(recordBytes)),
      recordTooLarge: await putRecord(line(recordBytes + 1)),
      mostRecords: await putBatch(Array.from({ length: batchRecords }, () => line(10))),
      tooManyRecords: await putBatch(Array.from({ length: batchRecords + 1 }, () => line(10))),
      batchTooLarge: await putBatch([
        ...Array.from({ length: 4 }, () => line(recordBytes)),
        line(batchBytes - 4 * recordBytes + 1),
      ]),
      otherStream: await putRecord(line(10), 'another-stream'),
      noRecord: await firehose
        .send(new PutRecordCommand({ DeliveryStreamName: archive.stream } as PutRecordCommandInput))
        .then(
          () => 'taken',
          (error: Error) => error.name,
        ),
    };
    const oversizeHeaders = {
      'x-amz-target': 'Firehose_20150804.PutRecord',
      'content-length': String(64 * 1024 * 1024),
    };
    const oversizeSignature = await signedHeaderLines(
      {
        method: 'POST',
        target: '/',
        host: oversize.host,
        headers: oversizeHeaders,
        service: 'firehose',
      },
      archive.credentials,
    );
    oversize.write(
      Buffer.from(`POST / HTTP/1.1\r\nHost: ${oversize.host}\r\n${oversizeSignature}\r\n{`),
    );
    const tooLarge = await oversize.readAnswer();
    oversize.close();
    await archive.flush();
    const lines = await countLines(s3, archive.bucket);
    firehose.destroy();
    s3.destroy();
    await archive.close();

    // Assess
    expect(answers).toEqual({
      largestRecord: 'taken',
      recordTooLarge: 'ValidationException',
      mostRecords: 'taken',
      tooManyRecords: 'ValidationException',
      batchTooLarge: 'ValidationException',
      otherStream: 'ResourceNotFoundException',
      noRecord: 'ValidationException',
    });
    expect(tooLarge?.status).toBe(413);
    expect(lines).toBe(1 + batchRecords);
  });

  it('bounds the S3 calls whose bodies s3rver holds, and streams an object larger than that bound', async () => {
    // Prepare
    const archive = await startTestArchive(join(stateDir(), 's3-bodies'));
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const deletion = await KeptAliveConnection.open(archive.endpoint);
    const large = Buffer.alloc(8 * 1024 * 1024, 0x61);

    // Act: the start of a body declared at 64 MiB on a listing, then an 8 MiB object.
    const listing = `/${archive.bucket}?list-type=2`;
    const signature = await signedHeaderLines(
      {
        method: 'GET',
        target: listing,
        host: deletion.host,
        headers: { 'content-type': 'application/xml', 'content-length': String(64 * 1024 * 1024) },
      },
      archive.credentials,
    );
    deletion.write(
      Buffer.from(`GET ${listing} HTTP/1.1\r\nHost: ${deletion.host}\r\n${signature}\r\n<Delete>`),
    );
    const tooLarge = await deletion.readAnswer();
    deletion.close();
    await s3.send(new PutObjectCommand({ Bucket: archive.bucket, Key: 'large', Body: large }));
    const object = await s3.send(new GetObjectCommand({ Bucket: archive.bucket, Key: 'large' }));
    const read = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    s3.destroy();
    await archive.close();

    // Assess
    expect(tooLarge?.status).toBe(413);
    expect(tooLarge?.headers['content-type']).toBe('application/xml');
    expect(tooLarge?.body).toContain('<Code>PayloadTooLarge</Code>');
    expect(read.equals(large)).toBe(true);
  });

  it('sends 100 Continue only to a call whose body it reads: an S3 document or a put too large gets its refusal alone', async () => {
    // Prepare
    const archive = await startTestArchive(join(stateDir(), 'expect-continue'));
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const open = () => KeptAliveConnection.open(archive.endpoint);
    const [deletion, put, object] = [await open(), await open(), await open()];
    const headOf = async (
      connection: KeptAliveConnection,
      [method, target]: readonly [string, string],
      length: number,
      headers: Readonly<Record<string, string>> = {},
      service = 's3',
    ): Promise<Buffer> => {
      const signature = await signedHeaderLines(
        {
          method,
          target,
          host: connection.host,
          headers: { ...headers, 'content-length': String(length) },
          service,
        },
        archive.credentials,
      );
      return Buffer.from(
        `${method} ${target} HTTP/1.1\r\nHost: ${connection.host}\r\nExpect: 100-continue\r\n${signature}\r\n`,
      );
    };
    const firstAnswer = async (connection: KeptAliveConnection, head: Buffer) => {
      connection.write(head);
      return (await connection.readAnswer({ interim: true }))?.status;
    };

    // Act: heads only, as a client waiting for 100 Continue sends them
    const statuses = {
      deletion: await firstAnswer(
        deletion,
        await headOf(deletion, ['GET', `/${archive.bucket}?list-type=2`], 64 * 1024 * 1024),
      ),
      put: await firstAnswer(
        put,
        await headOf(
          put,
          ['POST', '/'],
          64 * 1024 * 1024,
          { 'x-amz-target': 'Firehose_20150804.PutRecord' },
          'firehose',
        ),
      ),
      object: await firstAnswer(
        object,
        await headOf(object, ['PUT', `/${archive.bucket}/sent-after-100`], 5),
      ),
    };
    const closed = [await deletion.closedWithin(2_000), await put.closedWithin(2_000)];
    object.write(Buffer.from('12345'));
    const stored = await object.readAnswer();
    object.close();
    const read = await s3.send(
      new GetObjectCommand({ Bucket: archive.bucket, Key: 'sent-after-100' }),
    );
    const text = await read.Body?.transformToString();
    s3.destroy();
    await archive.close();

    // Assess
    expect(statuses).toEqual({ deletion: 413, put: 413, object: 100 });
    expect(closed).toEqual([true, true]);
    expect(stored?.status).toBe(200);
    expect(text).toBe('12345');
  });

  it('pages a truncated ListObjectsV2 listing, from StartAfter, as S3 does', async () => {
    // Prepare: pages of two keys stand for S3's 1,000; s3rver's own token failed on any
    // truncated listing, whatever its size.
    const archive = await startTestArchive(join(stateDir(), 'paging'));
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const keys = Array.from({ length: 6 }, (_, index) => `deliveries/k-${index}`);
    for (const Key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: archive.bucket, Key, Body: 'x' }));
    }

    // Act
    const pages = [];
    for await (const page of paginateListObjectsV2(
      { client: s3, pageSize: 2 },
      { Bucket: archive.bucket, Prefix: 'deliveries/', StartAfter: keys[0] },
    )) {
      pages.push(page);
    }
    s3.destroy();
    await archive.close();

    // Assess
    expect(pages.map((page) => [page.KeyCount, page.IsTruncated])).toEqual([
      [2, true],
      [2, true],
      [1, false],
    ]);
    expect(pages.flatMap((page) => (page.Contents ?? []).map(({ Key }) => Key))).toEqual(
      keys.slice(1),
    );
    expect(pages[1]?.ContinuationToken).toBe(pages[0]?.NextContinuationToken);
    expect(pages[2]?.ContinuationToken).toBe(pages[1]?.NextContinuationToken);
  });

  it('takes puts after many calls answered before their bodies were read, whose clients then went away', async () => {
    // Prepare: s3rver answers a listing at once, before its declared 2 MiB body.
    const archive = await startTestArchive(join(stateDir(), 'answered-early'));
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });

    // Act: more such calls than the port's budget holds, then a put.
    const statuses: number[] = [];
    for (let index = 0; index < 30; index++) {
      const connection = await KeptAliveConnection.open(archive.endpoint);
      const signature = await signedHeaderLines(
        {
          method: 'GET',
          target: `/${archive.bucket}`,
          host: connection.host,
          headers: { 'content-length': String(2 * 1024 * 1024) },
        },
        archive.credentials,
      );
      connection.write(
        Buffer.from(
          `GET /${archive.bucket} HTTP/1.1\r\nHost: ${connection.host}\r\n${signature}\r\n`,
        ),
      );
      statuses.push((await connection.readAnswer())?.status ?? 0);
      connection.close();
    }
    const put = await firehose.send(
      new PutRecordCommand({ DeliveryStreamName: archive.stream, Record: { Data: record(1) } }),
    );
    firehose.destroy();
    await archive.close();

    // Assess
    expect(statuses).toEqual(Array(30).fill(200));
    expect(put.RecordId).toBeDefined();
  });
});

/** The lines of every object in the bucket. */
async function countLines(s3: ReturnType<typeof localS3Client>, bucket: string): Promise<number> {
  const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  let lines = 0;
  for (const { Key } of Contents) {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
    lines += ((await object.Body?.transformToString()) ?? '').split('\n').filter(Boolean).length;
  }
  return lines;
}
