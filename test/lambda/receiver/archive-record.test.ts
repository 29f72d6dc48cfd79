import { describe, expect, it } from 'vitest';
import {
  type ArchiveRecord,
  archiveLine,
  FIREHOSE_LIMITS,
} from '../../../lambda/receiver/archive-record.js';

/** A queued call's record with `body` and a `source` attribute of `attribute`. */
function queuedRecord(body: Buffer, attribute: string): ArchiveRecord {
  return {
    v: 1,
    received_at: '2026-11-27T10:00:00.000Z',
    verdict: 'queued',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body_base64: body.toString('base64'),
    body_bytes: body.byteLength,
    message: {
      attributes: { source: attribute },
      signature_timestamp: 1_795_000_000,
      deduplication_id: 'd',
      group_id: 'g',
    },
  };
}

/** The line as a record, and its length in bytes. */
const read = (line: Buffer) => ({
  record: JSON.parse(line.toString('utf8')) as ArchiveRecord,
  bytes: line.byteLength,
});

describe('Function: archiveLine', () => {
  it("keeps a record whose line fits Firehose's limit whole, to the byte", () => {
    // Prepare: an attribute padded so that the room left is whole base64 groups, and a body
    // filling them
    // (measured with a body of as many digits in body_bytes, its base64 left out)
    const room = (attribute: string) =>
      FIREHOSE_LIMITS.recordBytes -
      archiveLine({ ...queuedRecord(Buffer.alloc(700_000), attribute), body_base64: '' })
        .byteLength;
    const attribute = `caf\u00e9${'x'.repeat(room('caf\u00e9') % 4)}`;
    const body = Buffer.alloc((room(attribute) / 4) * 3, 0x61);

    // Act
    const line = read(archiveLine(queuedRecord(body, attribute)));

    // Assess
    expect(line.bytes).toBe(FIREHOSE_LIMITS.recordBytes);
    expect(line.record.body_truncated).toBeUndefined();
    expect(Buffer.from(line.record.body_base64, 'base64').equals(body)).toBe(true);
  });

  it('cuts the body of a longer record to whole base64 groups that fit, and says so', () => {
    // Prepare: non-ASCII attribute text takes more bytes than characters
    const body = Buffer.alloc(600_000, 0x62);
    const attribute = '\u20ac\u{1F600}'.repeat(60_000);

    // Act
    const line = read(archiveLine(queuedRecord(body, attribute)));
    const kept = Buffer.from(line.record.body_base64, 'base64');

    // Assess
    expect(line.bytes).toBeLessThanOrEqual(FIREHOSE_LIMITS.recordBytes);
    expect(line.bytes).toBeGreaterThan(FIREHOSE_LIMITS.recordBytes - 4);
    expect(line.record).toMatchObject({ body_truncated: true, body_bytes: 600_000 });
    expect(line.record.message?.attributes.source).toBe(attribute);
    expect(body.subarray(0, kept.byteLength).equals(kept)).toBe(true);
  });

  it('keeps no body when the rest of the record leaves no room for any', () => {
    // Act
    const line = read(
      archiveLine(
        queuedRecord(Buffer.alloc(3000, 0x63), 'x'.repeat(FIREHOSE_LIMITS.recordBytes - 100)),
      ),
    );

    // Assess
    expect(line.record).toMatchObject({ body_base64: '', body_truncated: true, body_bytes: 3000 });
  });
});
