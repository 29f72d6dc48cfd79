import { FirehoseClient } from '@aws-sdk/client-firehose';
import { afterEach, describe, expect, it } from 'vitest';
import { type ArchiveRecord, archiveLine } from '../../../lambda/receiver/archive-record.js';
import { firehoseArchive } from '../../../lambda/receiver/archive-writer.js';
import { type LocalFirehose, startLocalFirehose } from '../../deploy/support/local-firehose.js';
import { LOCAL_AWS_SETTINGS } from '../../support/local-sqs.js';

const STREAM = 'webhook-archive';

const record = (requestId: string): ArchiveRecord => ({
  v: 1,
  received_at: '2026-11-28T03:00:00.000Z',
  api_request_id: requestId,
  verdict: 'queued',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body_base64: Buffer.from(`{"event":"event_booked","data":{"id":"${requestId}"}}`).toString(
    'base64',
  ),
  body_bytes: 47,
});

describe('Function: firehoseArchive', () => {
  let firehose: LocalFirehose | undefined;
  let client: FirehoseClient | undefined;
  afterEach(async () => {
    client?.destroy();
    await firehose?.close();
  });

  async function writer(options: { readonly refuseRecordsContaining?: string } = {}) {
    firehose = await startLocalFirehose(options);
    client = new FirehoseClient({ ...LOCAL_AWS_SETTINGS, endpoint: firehose.endpoint });
    return { archive: firehoseArchive(client, STREAM), firehose };
  }

  it('puts a record written alone with PutRecord, as one JSON line', async () => {
    // Prepare
    const { archive, firehose } = await writer();

    // Act
    const failure = await archive.write(record('a'), Date.now() + 500);

    // Assess
    expect(failure).toBeUndefined();
    expect(firehose.calls).toEqual([{ operation: 'PutRecord', streamName: STREAM }]);
    expect(firehose.records).toEqual([archiveLine(record('a')).toString('utf8')]);
  });

  it('puts each record with a PutRecord of its own, also when several are written at once', async () => {
    // Prepare
    const { archive, firehose } = await writer();
    const ids = ['a', 'b', 'c'];

    // Act
    const failures = await Promise.all(
      ids.map((id) => archive.write(record(id), Date.now() + 500)),
    );

    // Assess
    expect(failures).toEqual([undefined, undefined, undefined]);
    expect(firehose.calls).toEqual(ids.map(() => ({ operation: 'PutRecord', streamName: STREAM })));
    expect([...firehose.records].sort()).toEqual(
      ids.map((id) => archiveLine(record(id)).toString('utf8')),
    );
  });

  it('reports the record Firehose refused as failed, the others written at once taken', async () => {
    // Prepare
    const { archive, firehose } = await writer({ refuseRecordsContaining: '"api_request_id":"b"' });

    // Act
    const failures = await Promise.all(
      ['a', 'b', 'c'].map((id) => archive.write(record(id), Date.now() + 500)),
    );

    // Assess
    expect(failures[0]).toBeUndefined();
    expect(failures[1]).toMatchObject({ name: 'ServiceUnavailableException' });
    expect(failures[2]).toBeUndefined();
    expect([...firehose.records].sort()).toEqual(
      ['a', 'c'].map((id) => archiveLine(record(id)).toString('utf8')),
    );
  });
});
