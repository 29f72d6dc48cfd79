import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { WebhookReceiverError } from '../lambda/core/errors.js';

/** When a buffer is written: once its oldest record has waited `intervalMs`, or at `maxBytes`. */
export interface BufferLimits {
  readonly intervalMs: number;
  readonly maxBytes: number;
}

/** Writes one object holding `data`, records in arrival order, the oldest taken at `since`. */
export type WriteBuffer<T> = (data: Buffer, since: Date) => Promise<T>;

/** Options of {@link ArchiveBuffer.open}. */
export interface ArchiveBufferOptions<T> {
  /** The folder of the buffer's files (the state folder). */
  readonly dir: string;
  readonly write: WriteBuffer<T>;
  readonly limits: BufferLimits;
  /**
   * Called with the records of each object written, and what `write` returned; an observer,
   * which must not throw.
   */
  readonly onWritten: (records: readonly Buffer[], result: T) => void;
  /** Called when a buffer could not be written (its records are kept and tried again). */
  readonly onError: (error: unknown) => void;
  /**
   * The clock, epoch milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** A put after {@link ArchiveBuffer.close} (answered as Firehose's ServiceUnavailableException). */
class ArchiveClosedError extends WebhookReceiverError {}

/**
 * A put while the records waiting for a write that keeps failing fill {@link MAX_HELD_BUFFERS}
 * buffers (answered as Firehose's ServiceUnavailableException, its answer when it must slow down).
 */
class ArchiveFullError extends WebhookReceiverError {}

/**
 * How many buffers' worth of records are held while writes fail. They are kept in memory for the
 * next write as well as on disk, so without a bound a destination that fails for long would grow
 * the process without end; past it puts are refused, which the receiver reports as archive
 * failures (the queue and the answers carry on).
 */
const MAX_HELD_BUFFERS = 8;

/** How the names of the buffer's files in the state folder start. */
export const BUFFER_FILE_PREFIX = 'archive-buffer.';
/** Added to a buffer file's name when it is set aside for its object. */
const SET_ASIDE_SUFFIX = '.writing';
/**
 * A buffer's file: the prefix, the time of its oldest record (epoch ms) and a sequence number,
 * with the suffix once set aside.
 */
const BUFFER_FILE = new RegExp(
  `^${BUFFER_FILE_PREFIX.replaceAll('.', '\\.')}(\\d+)\\.(\\d+)(?:${SET_ASIDE_SUFFIX.replaceAll('.', '\\.')})?$`,
);

/** A buffer file: its name and the time of its oldest record. */
interface BufferFile {
  readonly name: string;
  readonly since: number;
}

/**
 * Records taken but not yet written, buffered as Firehose buffers them: written together as one
 * object once the oldest has waited `intervalMs` or they reach `maxBytes`, and on {@link close}.
 * Each record is appended to a file in the state folder before {@link add} returns, so a put
 * answered survives the process being killed: the next {@link ArchiveBuffer.open} writes what a
 * run left, each buffer as its own object under the time of its oldest record. A run killed
 * between writing an object and removing its file writes those records again (at least once, as
 * Firehose). The files are not flushed to the disk (no fsync): a crash of the machine may lose
 * them, which the archive of a local run can afford (the queue's journal cannot).
 *
 * One write runs at a time. A failed one keeps its records and files and is tried again with the
 * next buffer, on the interval only; the error goes to `onError`, as the puts were answered.
 */
export class ArchiveBuffer<T> {
  readonly #options: ArchiveBufferOptions<T>;
  readonly #now: () => number;
  /** The file taking records, once the first of its buffer came; -1 until then. */
  #fd = -1;
  #file: BufferFile | undefined;
  #fileBytes = 0;
  #records: Buffer[] = [];
  #bytes = 0;
  /** Bytes of the records taken out for the write under way: held too until it succeeds. */
  #writingBytes = 0;
  /** Files set aside, oldest first, whose records lead `#records` (those of failed writes). */
  #setAside: BufferFile[] = [];
  #sequence = 0;
  #timer: NodeJS.Timeout | undefined;
  #writes: Promise<void> = Promise.resolve();
  #queued: Promise<void> | undefined;
  #failing = false;
  #closed = false;

  private constructor(options: ArchiveBufferOptions<T>) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Writes the buffers a previous run left in `dir`, oldest first, each as one object, then
   * returns an empty buffer there.
   *
   * @throws the error of a write that failed (its records stay on disk for the next start)
   */
  static async open<T>(options: ArchiveBufferOptions<T>): Promise<ArchiveBuffer<T>> {
    const { dir, write } = options;
    mkdirSync(dir, { recursive: true });
    const left = readdirSync(dir)
      .flatMap((name) => {
        const match = BUFFER_FILE.exec(name);
        return match === null ? [] : [{ name, since: Number(match[1]), order: Number(match[2]) }];
      })
      .sort((a, b) => a.since - b.since || a.order - b.order);
    for (const { name, since } of left) {
      const data = readFileSync(join(dir, name));
      if (data.length > 0) await write(data, new Date(since));
      rmSync(join(dir, name));
    }
    return new ArchiveBuffer(options);
  }

  /**
   * Takes records: on disk when this returns, in an object within the buffer interval.
   *
   * @throws {ArchiveClosedError} after {@link close}
   * @throws {ArchiveFullError} when they would hold more than {@link MAX_HELD_BUFFERS} buffers
   * @throws the file system's error when they could not be appended (none of them is kept)
   */
  add(records: readonly Buffer[]): void {
    if (this.#closed) throw new ArchiveClosedError('the archive is closed');
    if (records.length === 0) return;
    const data = records.length === 1 ? (records[0] as Buffer) : Buffer.concat(records);
    const held = this.#bytes + this.#writingBytes;
    if (held + data.length > MAX_HELD_BUFFERS * this.#options.limits.maxBytes) {
      throw new ArchiveFullError(`${held} bytes of records are waiting for a write`);
    }
    if (this.#fd === -1) {
      const since = this.#now();
      this.#file = { name: `${BUFFER_FILE_PREFIX}${since}.${this.#sequence++}`, since };
      this.#fd = openSync(join(this.#options.dir, this.#file.name), 'a');
      this.#fileBytes = 0;
    }
    this.#append(data);
    this.#records.push(...records);
    this.#bytes += data.length;
    // After a failed write the records wait for the interval, however many arrive meanwhile.
    if (this.#bytes >= this.#options.limits.maxBytes && !this.#failing) void this.flush();
    else this.#flushLater();
  }

  /**
   * Writes what is buffered now, after the write under way if any. Resolves once the records
   * taken so far were tried; rejects only when `onError` or `onWritten` throws.
   */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // A flush asked for while one waits for its turn would write the same records: it joins it.
    if (this.#queued !== undefined) return this.#queued;
    const queued = this.#writes.then(() => {
      this.#queued = undefined;
      return this.#writeBuffered();
    });
    this.#queued = queued;
    // A throwing callback fails this flush only, never the writes after it.
    this.#writes = queued.catch(() => undefined);
    return queued;
  }

  /** Writes what is buffered and closes its file; what cannot be written stays on disk. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.flush();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closeFile();
  }

  /** Appends all of `data`, or none of it: a short write or an error is cut off again. */
  #append(data: Buffer): void {
    try {
      for (let written = 0; written < data.length; ) {
        written += writeSync(this.#fd, data, written);
      }
    } catch (error) {
      ftruncateSync(this.#fd, this.#fileBytes);
      throw error;
    }
    this.#fileBytes += data.length;
  }

  async #writeBuffered(): Promise<void> {
    if (this.#records.length === 0) return;
    const file = this.#file;
    if (this.#fd !== -1 && file !== undefined) {
      // Set aside under a new name while still open, so a failed rename changes nothing.
      const setAside = { name: `${file.name}${SET_ASIDE_SUFFIX}`, since: file.since };
      try {
        renameSync(join(this.#options.dir, file.name), join(this.#options.dir, setAside.name));
        this.#setAside.push(setAside);
      } catch (error) {
        // A file removed by hand is gone for good, but its records are all here: written now.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          this.#retryLater(error);
          return;
        }
      }
      this.#closeFile();
    }
    // Taken out for this write: records taken meanwhile start a new buffer, in a new file.
    const records = this.#records;
    const files = this.#setAside;
    const bytes = this.#bytes;
    this.#records = [];
    this.#setAside = [];
    this.#bytes = 0;
    this.#writingBytes = bytes;
    const since = new Date(files[0]?.since ?? file?.since ?? this.#now());
    let result: T;
    try {
      result = await this.#options.write(Buffer.concat(records), since);
    } catch (error) {
      // Back in front of the records taken meanwhile, with their files, for the next write.
      this.#records = [...records, ...this.#records];
      this.#setAside = [...files, ...this.#setAside];
      this.#bytes += bytes;
      this.#retryLater(error);
      return;
    } finally {
      this.#writingBytes = 0;
    }
    this.#failing = false;
    for (const { name } of files) rmSync(join(this.#options.dir, name), { force: true });
    this.#options.onWritten(records, result);
  }

  #closeFile(): void {
    if (this.#fd === -1) return;
    closeSync(this.#fd);
    this.#fd = -1;
  }

  /** Keeps everything for the next write, on the interval only, and reports why. */
  #retryLater(error: unknown): void {
    this.#failing = true;
    if (!this.#closed) this.#flushLater();
    this.#options.onError(error);
  }

  /** Writes the buffer once the interval has passed, unless a write is due before. */
  #flushLater(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => void this.flush(), this.#options.limits.intervalMs);
    this.#timer.unref();
  }
}
