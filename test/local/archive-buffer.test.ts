import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ArchiveBuffer, type BufferLimits } from '../../local/archive-buffer.js';
import { scratchDir } from '../support/scratch-dir.js';

const stateDir = scratchDir('archive-buffer');

const record = (index: number) => Buffer.from(`${JSON.stringify({ index })}\n`);
const lines = (data: Buffer) => data.toString('utf8').split('\n').filter(Boolean);

/** An object written by a test's buffer: its lines and the time of its oldest record. */
interface Written {
  readonly lines: string[];
  readonly since: Date;
}

/**
 * A buffer in `dir` whose objects are kept in `written` and the object of each record in
 * `linked`; `fail.now` makes writes throw, `now` is its clock.
 */
async function openBuffer(
  dir: string,
  limits: BufferLimits,
  fail = { now: false },
  now: () => number = Date.now,
) {
  const written: Written[] = [];
  const linked: number[] = [];
  const errors: unknown[] = [];
  const buffer = await ArchiveBuffer.open({
    dir,
    limits,
    write: async (data, since) => {
      if (fail.now) throw new Error('disk full');
      written.push({ lines: lines(data), since });
      return written.length;
    },
    onWritten: (records, object) => {
      for (const _ of records) linked.push(object);
    },
    onError: (error) => errors.push(error),
    now,
  });
  return { buffer, written, linked, errors };
}

describe('Class: ArchiveBuffer', () => {
  it('writes the records taken within its interval as one object, in order, once the oldest has waited that long', async () => {
    // Prepare
    const dir = join(stateDir(), 'interval');
    const { buffer, written, linked } = await openBuffer(dir, {
      intervalMs: 400,
      maxBytes: 1 << 20,
    });
    const from = new Date();

    // Act
    for (let index = 0; index < 20; index++) buffer.add([record(index)]);
    await sleep(200);
    const halfway = written.length;
    await sleep(500);

    // Assess
    expect(halfway).toBe(0);
    expect(written).toHaveLength(1);
    expect(written[0]?.lines).toEqual(Array.from({ length: 20 }, (_, i) => `{"index":${i}}`));
    expect(written[0]?.since.getTime()).toBeGreaterThanOrEqual(from.getTime());
    expect(linked).toEqual(Array(20).fill(1));
    await buffer.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes at once when the buffer reaches its size', async () => {
    // Prepare
    const { buffer, written } = await openBuffer(join(stateDir(), 'size'), {
      intervalMs: 60_000,
      maxBytes: 30,
    });

    // Act: 12 bytes a record, so the third fills the buffer, long before its interval.
    buffer.add([record(1), record(2)]);
    const belowSize = written.length;
    buffer.add([record(3)]);
    await sleep(100);
    const atSize = written.map((object) => object.lines.length);
    buffer.add([record(4)]);
    await buffer.close();

    // Assess
    expect(belowSize).toBe(0);
    expect(atSize).toEqual([3]);
    expect(written.map((object) => object.lines.length)).toEqual([3, 1]);
  });

  it('keeps the records taken while a write is under way for the next write, and links each record to its own object', async () => {
    // Prepare: a write that waits until the test lets it finish.
    const dir = join(stateDir(), 'overlap');
    const written: string[][] = [];
    const linked: Array<[string, number]> = [];
    let finishWrite = () => {};
    const buffer = await ArchiveBuffer.open({
      dir,
      limits: { intervalMs: 60_000, maxBytes: 1 << 20 },
      write: async (data) => {
        if (written.length === 0) await new Promise<void>((resolve) => (finishWrite = resolve));
        written.push(lines(data));
        return written.length;
      },
      onWritten: (records, object) => {
        for (const taken of records) linked.push([lines(taken)[0] ?? '', object]);
      },
      onError: (error) => {
        throw error;
      },
    });

    // Act
    buffer.add([record(1)]);
    const first = buffer.flush();
    await sleep(10);
    buffer.add([record(2)]);
    const filesDuringWrite = readdirSync(dir).sort();
    finishWrite();
    await first;
    buffer.add([record(3)]);
    await buffer.close();

    // Assess
    expect(filesDuringWrite).toEqual([
      expect.stringMatching(/^archive-buffer\.\d+\.0\.writing$/),
      expect.stringMatching(/^archive-buffer\.\d+\.1$/),
    ]);
    expect(written).toEqual([['{"index":1}'], ['{"index":2}', '{"index":3}']]);
    expect(linked).toEqual([
      ['{"index":1}', 1],
      ['{"index":2}', 2],
      ['{"index":3}', 2],
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps the records of a failed write, on disk and in memory, and writes them with the next buffer', async () => {
    // Prepare
    const fail = { now: true };
    const { buffer, written, errors } = await openBuffer(
      join(stateDir(), 'retry'),
      { intervalMs: 60_000, maxBytes: 1 << 20 },
      fail,
    );

    // Act
    buffer.add([record(1)]);
    await buffer.flush();
    buffer.add([record(2)]);
    fail.now = false;
    await buffer.flush();
    await buffer.close();

    // Assess
    expect(errors).toEqual([new Error('disk full')]);
    expect(written.map((object) => object.lines)).toEqual([['{"index":1}', '{"index":2}']]);
  });

  it('refuses records once eight buffers wait for a write that keeps failing, and writes every record it took when writes succeed again', async () => {
    // Prepare: buffers of 36 bytes, so 288 bytes are held at most.
    const fail = { now: true };
    const { buffer, written, errors } = await openBuffer(
      join(stateDir(), 'full'),
      { intervalMs: 60_000, maxBytes: 36 },
      fail,
    );

    // Act: puts one after the other until one is refused.
    let taken = 0;
    let refusal: unknown;
    while (refusal === undefined && taken < 100) {
      try {
        buffer.add([record(taken)]);
        taken++;
      } catch (error) {
        refusal = error;
      }
      await buffer.flush();
    }
    fail.now = false;
    await buffer.flush();
    buffer.add([record(taken)]);
    await buffer.close();

    // Assess
    // Records 0-9 take 12 bytes, 10-99 13 bytes: 22 of them take 276 bytes, a 23rd 289.
    expect(taken).toBe(22);
    expect((refusal as Error).name).toBe('ArchiveFullError');
    expect(errors.length).toBeGreaterThan(0);
    expect(written.flatMap((object) => object.lines)).toEqual(
      Array.from({ length: taken + 1 }, (_, i) => `{"index":${i}}`),
    );
  });

  it('counts the records of a write under way among those it holds, so puts during a slow failing write are refused at the same bound', async () => {
    // Prepare: writes that fail only when the test says so, buffers of 36 bytes.
    const dir = join(stateDir(), 'full-during-write');
    const pending: Array<(error: Error) => void> = [];
    let failed = false;
    const failWrite = () => {
      failed = true;
      for (const reject of pending) reject(new Error('S3 answered 503'));
    };
    const buffer = await ArchiveBuffer.open({
      dir,
      limits: { intervalMs: 60_000, maxBytes: 36 },
      write: () =>
        failed
          ? Promise.reject(new Error('S3 answered 503'))
          : new Promise((_, reject) => pending.push(reject)),
      onWritten: () => {},
      onError: () => {},
    });
    const addUntilRefused = (from: number): number => {
      for (let index = from; index < from + 100; index++) {
        try {
          buffer.add([record(index)]);
        } catch {
          return index - from;
        }
      }
      return 100;
    };

    // Act: fill it, start a write, put more while it is under way, let it fail, put more.
    const beforeWrite = addUntilRefused(0);
    const writing = buffer.flush();
    await sleep(10);
    const duringWrite = addUntilRefused(beforeWrite);
    failWrite();
    await writing;
    const afterFailure = addUntilRefused(beforeWrite + duringWrite);
    await buffer.close();

    // Assess: 22 records (276 of 288 bytes) before the write, none while and after it fails.
    expect([beforeWrite, duringWrite, afterFailure]).toEqual([22, 0, 0]);
  });

  it('writes each buffer a run could not, first thing when the next opens the folder, under the time of its oldest record', async () => {
    // Prepare: a run whose writes all fail stops with two buffers on disk, taken hours ago.
    const dir = join(stateDir(), 'left');
    const times = [Date.parse('2026-11-25T08:59:59Z'), Date.parse('2026-11-25T09:00:01Z')];
    const failing = await openBuffer(
      dir,
      { intervalMs: 60_000, maxBytes: 1 << 20 },
      { now: true },
      () => times.shift() ?? Number.NaN,
    );
    failing.buffer.add([record(1), record(2)]);
    await failing.buffer.flush();
    failing.buffer.add([record(3)]);
    await failing.buffer.close();

    // Act
    const next = await openBuffer(dir, { intervalMs: 60_000, maxBytes: 1 << 20 });

    // Assess
    expect(failing.written).toEqual([]);
    expect(failing.errors).toHaveLength(2);
    expect(next.written).toEqual([
      { lines: ['{"index":1}', '{"index":2}'], since: new Date('2026-11-25T08:59:59Z') },
      { lines: ['{"index":3}'], since: new Date('2026-11-25T09:00:01Z') },
    ]);
    await next.buffer.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('writes the records of a buffer file removed by hand from memory, and appends later ones to a new file of its own', async () => {
    // Prepare
    const dir = join(stateDir(), 'gone');
    const { buffer, errors, written } = await openBuffer(dir, {
      intervalMs: 60_000,
      maxBytes: 1 << 20,
    });
    buffer.add([record(1)]);
    for (const name of readdirSync(dir)) rmSync(join(dir, name));

    // Act: a file opened after the write may get the buffer's old descriptor number.
    await buffer.flush();
    const other = join(dir, 'other');
    writeFileSync(other, '');
    buffer.add([record(2)]);
    await buffer.close();

    // Assess
    expect(errors).toEqual([]);
    expect(written.map((object) => object.lines)).toEqual([['{"index":1}'], ['{"index":2}']]);
    expect(readFileSync(other, 'utf8')).toBe('');
    expect(readdirSync(dir)).toEqual(['other']);
  });
});
