import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { readArchiveWindow } from '../../../devkit/archive-reader.js';
import { localS3Client } from '../../../devkit/s3-client.js';
import type { ArchiveRecord } from '../../../lambda/receiver/archive-record.js';
import { startTestArchive } from '../../support/local-archive.js';
import { scratchDir } from '../../support/scratch-dir.js';

const stateDir = scratchDir('archive-reader');

describe('Function: readArchiveWindow', () => {
  it('lists a window of days as one range of keys in pages, not hour by hour, and keeps the records received in it', async () => {
    // Prepare: a record an hour before the range, one at each end of a three-day window, three
    // empty objects between them, a record after the range and an object after that one. Pages of
    // two keys stand for S3's 1,000.
    const archive = await startTestArchive(join(stateDir(), 'range'));
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    let listings = 0;
    s3.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'ListObjectsV2Command') listings++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const put = (Key: string, receivedAt?: string) => {
      const Body = receivedAt === undefined ? '' : `${JSON.stringify(record(receivedAt))}\n`;
      // The length given: the SDK warns of a stream of unknown length for an empty body.
      return s3.send(
        new PutObjectCommand({
          Bucket: archive.bucket,
          Key,
          Body,
          ContentLength: Buffer.byteLength(Body),
        }),
      );
    };
    await put('deliveries/2026/01/01/09/before', '2026-01-01T09:10:00.000Z');
    await put('deliveries/2026/01/01/10/first', '2026-01-01T10:30:00.000Z');
    for (const index of [0, 1, 2]) await put(`deliveries/2026/01/02/15/empty-${index}`);
    await put('deliveries/2026/01/03/23/last', '2026-01-03T23:50:00.000Z');
    await put('deliveries/2026/01/04/02/after', '2026-01-04T02:10:00.000Z');
    await put('deliveries/2026/01/05/02/later', '2026-01-05T02:10:00.000Z');
    const listed: number[] = [];

    // Act
    const window = await readArchiveWindow(
      s3,
      archive.bucket,
      { from: new Date('2026-01-01T10:20:00Z'), to: new Date('2026-01-04T00:00:00Z') },
      { onListed: (count) => listed.push(count), pageSize: 2 },
    );
    s3.destroy();
    await archive.close();

    // Assess: 65 hours listed in three pages, the third ending the listing at the first key past
    // the range though more pages follow.
    expect(window.calls.map(({ record }) => record.received_at)).toEqual([
      '2026-01-01T10:30:00.000Z',
      '2026-01-03T23:50:00.000Z',
    ]);
    expect(window.unreadableLines).toBe(0);
    expect(listings).toBe(3);
    expect(listed).toEqual([2, 4]);
  });
});

/** An archive record of an ignored call received at `receivedAt`. */
function record(receivedAt: string): ArchiveRecord {
  return {
    v: 1,
    received_at: receivedAt,
    verdict: 'ignored',
    status: 200,
    headers: {},
    body_base64: '',
    body_bytes: 0,
  };
}
