import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectStart, visitArchiveWindow } from '../../devkit/archive-reader.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { RECEIVER_TIMEOUT_SECONDS } from '../../lambda/contract/settings.js';
import type { ArchiveRecord } from '../../lambda/receiver/archive-record.js';
import type { LocalArchive } from '../../local/local-archive.js';
import { countListings, putArchiveObject, startTestArchive } from '../support/local-archive.js';
import { scratchDir } from '../support/scratch-dir.js';

const stateDir = scratchDir('archive-visit');

describe('Function: visitArchiveWindow', () => {
  let archive: LocalArchive;
  let s3: S3Client;
  let listings: ReturnType<typeof countListings>;
  beforeAll(async () => {
    archive = await startTestArchive(stateDir());
    s3 = localS3Client(archive.endpoint, archive.credentials);
    listings = countListings(s3);
  });
  afterAll(async () => {
    s3.destroy();
    await archive.close();
  });

  const put = (key: string, lines: readonly string[]) =>
    putArchiveObject(s3, archive.bucket, key, lines);
  const visit = async (from: string, to: string, pageSize?: number) => {
    const seen: string[] = [];
    const listed: number[] = [];
    listings.reset();
    const result = await visitArchiveWindow(
      s3,
      archive.bucket,
      { from: new Date(from), to: new Date(to) },
      ({ record }) => {
        seen.push(`${record.received_at} ${record.api_request_id}`);
      },
      {
        ...(pageSize === undefined ? {} : { pageSize }),
        onListed: (count) => listed.push(count),
      },
    );
    return { ...result, seen, listed, listings: listings.count() };
  };

  it('hands over the records of a window crossing an hour and a day oldest first, objects written in the same second merged, reading only the hours it covers', async () => {
    // Prepare: two objects named in the same second whose records interleave, one in the next
    // day's first hour, one each before and after the window's hours.
    const stamp = (time: string) => `webhook-archive-1-2026-03-31-23-59-${time}`;
    await put(`deliveries/2026/03/31/21/${stamp('00')}-before`, [
      line('2026-03-31T21:10:00.000Z', 'a0'),
    ]);
    await put(`deliveries/2026/03/31/23/${stamp('58')}-b`, [
      line('2026-03-31T23:59:58.100Z', 'b1'),
      line('2026-03-31T23:59:58.300Z', 'b3'),
    ]);
    await put(`deliveries/2026/03/31/23/${stamp('58')}-a`, [
      line('2026-03-31T23:59:58.200Z', 'a2'),
      line('2026-03-31T23:59:58.400Z', 'a4'),
    ]);
    await put('deliveries/2026/04/01/00/webhook-archive-1-2026-04-01-00-10-00-c', [
      line('2026-04-01T00:10:00.000Z', 'c5'),
      line('2026-04-01T00:50:00.000Z', 'c6-after-window'),
    ]);
    await put('deliveries/2026/04/01/03/webhook-archive-1-2026-04-01-03-00-00-d', [
      line('2026-04-01T03:00:00.000Z', 'd7'),
    ]);

    // Act: the window ends at 00:30, past the midnight UTC that starts a new day and month
    const result = await visit('2026-03-31T23:30:00Z', '2026-04-01T00:30:00Z', 2);

    // Assess
    expect(result.seen).toEqual([
      '2026-03-31T23:59:58.100Z b1',
      '2026-03-31T23:59:58.200Z a2',
      '2026-03-31T23:59:58.300Z b3',
      '2026-03-31T23:59:58.400Z a4',
      '2026-04-01T00:10:00.000Z c5',
    ]);
    // 23:xx and 00:xx, plus the next hour for a record that reaches the stream late: three
    // objects in pages of 2 (the hour before the window starts after its 5-minute look-back).
    expect(result.objects).toBe(3);
    expect(result.listings).toBe(2);
    expect(result.listed).toEqual([2]);
    expect(result.unreadableLines).toBe(0);
  });

  it('skips and counts the lines of malformed objects and hands over the records beside them', async () => {
    // Prepare
    await put('deliveries/2026/05/01/10/webhook-archive-1-2026-05-01-10-00-00-m', [
      'not json at all',
      JSON.stringify({ v: 2, something: 'else' }),
      line('2026-05-01T10:00:01.000Z', 'good'),
    ]);
    await put('deliveries/2026/05/01/10/webhook-archive-1-2026-05-01-10-00-05-n', [
      '{"v":1,"received_at":"2026-05-01T10:00:06.000Z"',
    ]);

    // Act
    const result = await visit('2026-05-01T10:00:00Z', '2026-05-01T11:00:00Z');

    // Assess
    expect(result.seen).toEqual(['2026-05-01T10:00:01.000Z good']);
    expect(result).toMatchObject({ objects: 2, unreadableLines: 3, malformedObjects: 2 });
  });
});

describe('Function: objectStart', () => {
  const slack = RECEIVER_TIMEOUT_SECONDS * 1000 + 1000;

  it("reads the time of the oldest record's arrival from Firehose's object name, less the receiver's timeout", () => {
    // Act
    const start = objectStart(
      'deliveries/2026/11/27/10/Archive-3-2026-11-27-10-42-07-4b1c1e1a-7b3c-4d8e-9a51-0b2d3c4e5f60',
    );

    // Assess
    expect(start).toBe(Date.parse('2026-11-27T10:42:07Z') - slack);
  });

  it('falls back on the hour prefix for a name without a time', () => {
    // Act
    const start = objectStart('deliveries/2026/11/27/10/hand-written.ndjson');

    // Assess
    expect(start).toBe(Date.parse('2026-11-27T10:00:00Z') - slack);
  });
});

/** One archive line of an ignored call received at `receivedAt` with request id `id`. */
function line(receivedAt: string, id: string): string {
  const record: ArchiveRecord = {
    v: 1,
    received_at: receivedAt,
    api_request_id: id,
    verdict: 'ignored',
    status: 200,
    headers: {},
    body_base64: '',
    body_bytes: 0,
  };
  return JSON.stringify(record);
}
