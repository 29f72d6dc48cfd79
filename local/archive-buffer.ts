import {
  closeSync,
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

/** When a buffer is delivered: after its oldest record waited this long, or at this size. */
export interface BufferLimits {
  readonly intervalMs: number;
  readonly maxBytes: number;
}

/** Writes one object holding `data`, the records of a buffer in arrival order, the oldest at `since`. */
export type DeliverBuffer<T> = (data: Buffer, since: Date) => Promise<T>;

/** A put after {@link ArchiveBuffer.close} (answered as Firehose's ServiceUnavailableException). */
export class ArchiveClosedError extends WebhookReceiverError {}

/** The file records are appended to until their buffer is delivered. */
const OPEN_FILE = 'archive-buffer.open';
/** A buffer being delivered, or whose delivery failed: `archive-buffer.<n>.delivering`. */
const DELIVERING_FILE = /^archive-buffer\.\d+\.delivering$/;

/**
 * Records taken but not yet delivered, as Firehose buffers them: delivered together as one object
 * once the oldest has waited `intervalMs` or they reach `maxBytes`, and on {@link close}. Each
 * record is appended to a file in the state folder before {@link add} returns, so a put answered
 * is never lost: a run killed before the delivery leaves the file, and the next
 * {@link ArchiveBuffer.open} delivers it first.
 *
 * One delivery runs at a time. A failed one keeps its records and file and is tried again with the
 * next buffer; the error goes to `onError`, as the puts were answered already.
 */
export class ArchiveBuffer<T> {
  readonly #dir: string;
  readonly #deliver: DeliverBuffer<T>;
  readonly #limits: BufferLimits;
  readonly #onDelivered: (records: readonly Buffer[], result: T) => void;
  readonly #onError: (error: unknown) => void;
  #fd: number;
  #records: Buffer[] = [];
  #bytes = 0;
  #since: Date | undefined;
  /** Files holding exactly the records of `#records` that are not in the open file. */
  #delivering: string[] = [];
  #sequence = 0;
  #timer: NodeJS.Timeout | undefined;
  #delivery: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(
    dir: string,
    deliver: DeliverBuffer<T>,
    limits: BufferLimits,
    onDelivered: (records: readonly Buffer[], result: T) => void,
    onError: (error: unknown) => void,
  ) {
    this.#dir = dir;
    this.#deliver = deliver;
    this.#limits = limits;
    this.#onDelivered = onDelivered;
    this.#onError = onError;
    this.#fd = openSync(join(dir, OPEN_FILE), 'a');
  }

  /**
   * Delivers the records a previous run left in `dir` (as one object), then opens an empty
   * buffer there.
   *
   * @throws the delivery's error when those records cannot be delivered (they stay on disk)
   */
  static async open<T>(options: {
    readonly dir: string;
    readonly deliver: DeliverBuffer<T>;
    readonly limits: BufferLimits;
    readonly onDelivered: (records: readonly Buffer[], result: T) => void;
    readonly onError: (error: unknown) => void;
  }): Promise<ArchiveBuffer<T>> {
    const { dir, deliver } = options;
    mkdirSync(dir, { recursive: true });
    const names = readdirSync(dir);
    // In the order they were taken: set aside first (by sequence), then the open file.
    const left = names
      .filter((name) => DELIVERING_FILE.test(name))
      .sort((a, b) => sequenceOf(a) - sequenceOf(b));
    if (names.includes(OPEN_FILE)) left.push(OPEN_FILE);
    const data = Buffer.concat(left.map((name) => readFileSync(join(dir, name))));
    if (data.length > 0) await deliver(data, new Date());
    for (const name of left) rmSync(join(dir, name));
    return new ArchiveBuffer(dir, deliver, options.limits, options.onDelivered, options.onError);
  }

  /** How many records are waiting to be written (those of a failed write included). */
  get size(): number {
    return this.#records.length;
  }

  /** Takes records: on disk when this returns, in an object within the buffer interval. */
  add(records: readonly Buffer[]): void {
    if (this.#closed) throw new ArchiveClosedError('the archive is closed');
    if (records.length === 0) return;
    const data = records.length === 1 ? (records[0] as Buffer) : Buffer.concat(records);
    writeSync(this.#fd, data);
    this.#records.push(...records);
    this.#bytes += data.length;
    this.#since ??= new Date();
    if (this.#bytes >= this.#limits.maxBytes) {
      void this.flush();
    } else {
      this.#timer ??= setTimeout(() => void this.flush(), this.#limits.intervalMs).unref();
    }
  }

  /** Delivers what is buffered now; resolves once every record taken so far was tried. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const delivered = this.#delivery.then(() => this.#deliverBuffered());
    // A throwing onError fails this flush only, never the deliveries after it.
    this.#delivery = delivered.catch(() => undefined);
    return delivered;
  }

  /** Delivers what is buffered and closes the file; a failed delivery's records stay on disk. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    clearTimeout(this.#timer);
    closeSync(this.#fd);
    if (this.#records.length === 0) rmSync(join(this.#dir, OPEN_FILE), { force: true });
  }

  async #deliverBuffered(): Promise<void> {
    if (this.#records.length === 0) return;
    const records = this.#records;
    const since = this.#since ?? new Date();
    // The open file is set aside with these records: new ones go to a new file meanwhile.
    closeSync(this.#fd);
    const setAside = `archive-buffer.${this.#sequence++}.delivering`;
    renameSync(join(this.#dir, OPEN_FILE), join(this.#dir, setAside));
    this.#fd = openSync(join(this.#dir, OPEN_FILE), 'a');
    const files = [...this.#delivering, setAside];
    this.#records = [];
    this.#bytes = 0;
    this.#since = undefined;
    this.#delivering = [];
    let result: T;
    try {
      result = await this.#deliver(Buffer.concat(records), since);
    } catch (error) {
      // Tried again with the next buffer, in front of the records taken meanwhile.
      this.#records = [...records, ...this.#records];
      this.#bytes += records.reduce((sum, record) => sum + record.length, 0);
      this.#since = since;
      this.#delivering = files;
      if (!this.#closed) {
        this.#timer ??= setTimeout(() => void this.flush(), this.#limits.intervalMs).unref();
      }
      this.#onError(error);
      return;
    }
    for (const name of files) rmSync(join(this.#dir, name), { force: true });
    try {
      this.#onDelivered(records, result);
    } catch (error) {
      // An observer (the inspector's link) never fails a delivery.
      this.#onError(error);
    }
  }
}

function sequenceOf(name: string): number {
  return Number(name.split('.')[1]);
}
