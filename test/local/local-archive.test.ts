import { join } from 'node:path';
import { FirehoseClient, PutRecordBatchCommand, PutRecordCommand } from '@aws-sdk/client-firehose';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { localS3Client } from '../../devkit/s3-client.js';
import { startLocalArchive } from '../../local/local-archive.js';
import { LOCAL_AWS_SETTINGS } from '../support/local-sqs.js';
import { scratchDir } from '../support/scratch-dir.js';

const stateDir = scratchDir('local-archive');

/** A record as the receiver writes one: a JSON line. */
const record = (index: number) => Buffer.from(`${JSON.stringify({ index })}\n`);

describe('Function: startLocalArchive', () => {
  it('writes every record put before close, also those still waiting for their object when close is called', async () => {
    // Prepare
    const folder = join(stateDir(), 'close');
    const archive = await startLocalArchive({ port: 0, stateDir: folder });
    const firehose = new FirehoseClient({ ...LOCAL_AWS_SETTINGS, endpoint: archive.endpoint });

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

    // Assess: every put was answered and written, read back from the state folder.
    const reopened = await startLocalArchive({ port: 0, stateDir: folder });
    const s3 = localS3Client(reopened.endpoint);
    const lines = await countLines(s3, reopened.bucket);
    s3.destroy();
    await reopened.close();
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(200);
    expect(lines).toBe(200);
  });

  it('writes the records of one PutRecordBatch to one object', async () => {
    // Prepare
    const archive = await startLocalArchive({ port: 0, stateDir: join(stateDir(), 'batch') });
    const firehose = new FirehoseClient({ ...LOCAL_AWS_SETTINGS, endpoint: archive.endpoint });

    // Act
    const answer = await firehose.send(
      new PutRecordBatchCommand({
        DeliveryStreamName: archive.stream,
        Records: [0, 1, 2].map((index) => ({ Data: record(index) })),
      }),
    );
    firehose.destroy();
    const s3 = localS3Client(archive.endpoint);
    const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: archive.bucket }));
    s3.destroy();
    await archive.close();

    // Assess
    expect(answer.FailedPutCount).toBe(0);
    expect(Contents).toHaveLength(1);
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
