import { describe, expect, it } from 'vitest';
import {
  checkArchiveWindow,
  LONGEST_ARCHIVE_WINDOW_MS,
  windowPrefixes,
} from '../../../cli/lib/archive-reader.js';
import { UsageError } from '../../../devkit/tool-io.js';
import { MAX_ARCHIVE_DAYS } from '../../../lambda/receiver/archive-record.js';

const FROM = new Date('2026-01-01T00:00:00Z');

describe('Function: checkArchiveWindow', () => {
  it("takes a window as long as the longest archiveDays plus Firehose's 5-minute buffer", () => {
    // Act
    const check = () =>
      checkArchiveWindow({ from: FROM, to: new Date(FROM.getTime() + LONGEST_ARCHIVE_WINDOW_MS) });

    // Assess
    expect(LONGEST_ARCHIVE_WINDOW_MS).toBe((MAX_ARCHIVE_DAYS * 86_400 + 300) * 1000);
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
        `a window of ${MAX_ARCHIVE_DAYS + 1} days is longer than any archive keeps: at most ${MAX_ARCHIVE_DAYS} days (the most archiveDays allows) plus Firehose's 5-minute buffer`,
      ),
    );
  });
});

describe('Function: windowPrefixes', () => {
  it('looks back one Firehose buffer before the window and lists each hour it spans', () => {
    // Act
    const prefixes = windowPrefixes({
      from: new Date('2026-11-27T10:20:00Z'),
      to: new Date('2026-11-27T11:30:00Z'),
    });

    // Assess
    expect(prefixes).toEqual(['deliveries/2026/11/27/10/', 'deliveries/2026/11/27/11/']);
  });

  it("lists the next hour for a window ending within the receiver's timeout of it: a record received at 10:59:56 can reach Firehose after 11:00", () => {
    // Act
    const nearTheHour = windowPrefixes({
      from: new Date('2026-11-27T10:30:00Z'),
      to: new Date('2026-11-27T10:59:57Z'),
    });
    const wellBefore = windowPrefixes({
      from: new Date('2026-11-27T10:30:00Z'),
      to: new Date('2026-11-27T10:45:00Z'),
    });

    // Assess
    expect(nearTheHour).toEqual(['deliveries/2026/11/27/10/', 'deliveries/2026/11/27/11/']);
    expect(wellBefore).toEqual(['deliveries/2026/11/27/10/']);
  });

  it('lists each hour of the longest window an archive holds, once', () => {
    // Act
    const prefixes = windowPrefixes({
      from: FROM,
      to: new Date(FROM.getTime() + LONGEST_ARCHIVE_WINDOW_MS),
    });

    // Assess: the hour before for the buffer, then every hour up to the last day's first.
    expect(prefixes).toHaveLength(MAX_ARCHIVE_DAYS * 24 + 2);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(prefixes[0]).toBe('deliveries/2025/12/31/23/');
    expect(prefixes.at(-1)).toBe('deliveries/2036/01/02/00/');
  });

  it('refuses a window of centuries before building a prefix, instead of a million of them', () => {
    // Act
    const build = () =>
      windowPrefixes({
        from: new Date('1970-01-01T00:00:00Z'),
        to: new Date('2100-01-01T00:00:00Z'),
      });

    // Assess
    expect(build).toThrow(UsageError);
    expect(build).toThrow(/^a window of 47482 days is longer than any archive keeps/);
  });

  it('looks back into the previous hour for a window starting within one buffer of the hour', () => {
    // Act
    const prefixes = windowPrefixes({
      from: new Date('2026-11-27T11:03:00Z'),
      to: new Date('2026-11-27T11:10:00Z'),
    });

    // Assess
    expect(prefixes).toEqual(['deliveries/2026/11/27/10/', 'deliveries/2026/11/27/11/']);
  });
});
