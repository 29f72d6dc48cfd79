import { describe, expect, it } from 'vitest';
import { windowPrefixes } from '../../../cli/lib/archive-reader.js';

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
