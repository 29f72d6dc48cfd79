import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  checkArchiveWindow,
  LONGEST_ARCHIVE_WINDOW_MS,
  readArchiveWindow,
  windowKeyRange,
} from '../../../devkit/archive-reader.js';
import { localS3Client } from '../../../devkit/s3-client.js';
import { UsageError } from '../../../devkit/tool-io.js';
import { MAX_ARCHIVE_DAYS } from '../../../lambda/contract/archive-layout.js';
import type { ArchiveRecord } from '../../../lambda/receiver/archive-record.js';
import { startTestArchive } from '../../support/local-archive.js';
import { scratchDir } from '../../support/scratch-dir.js';

const stateDir = scratchDir('archive-reader');

const FROM = new Date('2026-01-01T00:00:00Z');

describe('Function: checkArchiveWindow', () => {
  it("takes a window as long as the longest archiveDays, a day for S3's expiry and Firehose's 5-minute buffer", () => {
    // Act
    const check = () =>
      checkArchiveWindow({ from: FROM, to: new Date(FROM.getTime() + LONGEST_ARCHIVE_WINDOW_MS) });

    // Assess
    expect(LONGEST_ARCHIVE_WINDOW_MS).toBe(((MAX_ARCHIVE_DAYS + 1) * 86_400 + 300) * 1000);
    expect(check).not.toThrow();
  });

  it('refuses a millisecond more with a usage error naming the limit', () => {
    // Act
    const check = () =>
      checkArchiveWindow({
        from: FROM,
        to: new Date(FROM.getTime() + LONGEST_ARCHIVE_WINDOW_MS + 1),
      });

    // Assess
    expect(check).toThrow(
      new UsageError(
        `a window of ${MAX_ARCHIVE_DAYS + 2} days is longer than any archive keeps: at most ${MAX_ARCHIVE_DAYS + 1} days (the most archiveDays allows, and a day for S3's expiry) plus Firehose's 5-minute buffer`,
      ),
    );
  });
});

describe('Function: windowKeyRange', () => {
  it('starts at the hour one Firehose buffer before the window and ends before the hour after it', () => {
    // Act
    const range = windowKeyRange({
      from: new Date('2026-11-27T10:20:00Z'),
      to: new Date('2026-11-27T11:30:00Z'),
    });

    // Assess
    expect(range).toEqual({
      startAfter: 'deliveries/2026/11/27/10/',
      endBefore: 'deliveries/2026/11/27/12/',
    });
  });

  it("takes the next hour in for a window ending within the receiver's timeout of it: a record received at 10:59:56 can reach Firehose after 11:00", () => {
    // Act
    const nearTheHour = windowKeyRange({
      from: new Date('2026-11-27T10:30:00Z'),
      to: new Date('2026-11-27T10:59:57Z'),
    });
    const wellBefore = windowKeyRange({
      from: new Date('2026-11-27T10:30:00Z'),
      to: new Date('2026-11-27T10:45:00Z'),
    });

    // Assess
    expect(nearTheHour.endBefore).toBe('deliveries/2026/11/27/12/');
    expect(wellBefore.endBefore).toBe('deliveries/2026/11/27/11/');
  });

  it('looks back into the previous hour, across a day and a year, for a window starting within one buffer of the hour', () => {
    // Act
    const range = windowKeyRange({
      from: new Date('2026-01-01T00:03:00Z'),
      to: new Date('2026-01-01T00:10:00Z'),
    });

    // Assess
    expect(range.startAfter).toBe('deliveries/2025/12/31/23/');
  });

  it('covers the longest window an archive holds', () => {
    // Act
    const range = windowKeyRange({
      from: FROM,
      to: new Date(FROM.getTime() + LONGEST_ARCHIVE_WINDOW_MS),
    });

    // Assess
    expect(range).toEqual({
      startAfter: 'deliveries/2025/12/31/23/',
      endBefore: 'deliveries/2036/01/03/01/',
    });
  });

  it('refuses a window of centuries with a usage error', () => {
    // Act
    const build = () =>
      windowKeyRange({
        from: new Date('1970-01-01T00:00:00Z'),
        to: new Date('2100-01-01T00:00:00Z'),
      });

    // Assess
    expect(build).toThrow(UsageError);
    expect(build).toThrow(/^a window of 47482 days is longer than any archive keeps/);
  });
});

describe('Function: readArchiveWindow', () => {
  it('lists a window of days as one range of keys in pages of 1,000, not hour by hour, and keeps the records received in it', async () => {
    // Prepare: a record an hour before the range, one at each end of a three-day window, 1,001
    // empty objects between them (two pages), and a record after the range.
    const archive = await startTestArchive(join(stateDir(), 'range'));
    const s3 = localS3Client(archive.endpoint);
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
    for (let index = 0; index <= 1000; index++) {
      await put(`deliveries/2026/01/02/15/empty-${String(index).padStart(4, '0')}`);
    }
    await put('deliveries/2026/01/03/23/last', '2026-01-03T23:50:00.000Z');
    await put('deliveries/2026/01/04/02/after', '2026-01-04T02:10:00.000Z');
    const listed: number[] = [];

    // Act
    const window = await readArchiveWindow(
      s3,
      archive.bucket,
      { from: new Date('2026-01-01T10:20:00Z'), to: new Date('2026-01-04T00:00:00Z') },
      { onListed: (count) => listed.push(count) },
    );
    s3.destroy();
    await archive.close();

    // Assess: 65 hours, listed in two calls
    expect(window.calls.map(({ record }) => record.received_at)).toEqual([
      '2026-01-01T10:30:00.000Z',
      '2026-01-03T23:50:00.000Z',
    ]);
    expect(window.unreadableLines).toBe(0);
    expect(listings).toBe(2);
    expect(listed).toEqual([1000]);
  }, 60_000);
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
