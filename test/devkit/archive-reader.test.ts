import { describe, expect, it } from 'vitest';
import {
  checkArchiveWindow,
  LONGEST_ARCHIVE_WINDOW_MS,
  windowKeyRange,
} from '../../devkit/archive-reader.js';
import { UsageError } from '../../devkit/tool-io.js';
import { MAX_ARCHIVE_DAYS } from '../../lambda/contract/archive-layout.js';

const FROM = new Date('2026-01-01T00:00:00Z');

describe('Function: checkArchiveWindow', () => {
  it("takes a window as long as the longest archiveDays, a day for S3's expiry and Firehose's 5-minute buffer", () => {
    // Prepare
    const longest = ((MAX_ARCHIVE_DAYS + 1) * 86_400 + 5 * 60) * 1000;

    // Act
    const check = () => checkArchiveWindow({ from: FROM, to: new Date(FROM.getTime() + longest) });

    // Assess
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
