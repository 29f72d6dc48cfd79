import {
  closeSync,
  fsync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** What a queue needs to hold a message again after a restart: its body, attributes and history. */
export interface StoredMessage {
  readonly messageId: string;
  readonly queueName: string;
  readonly body: string;
  /** The message attributes as SendMessage took them (`{ name: { DataType, StringValue } }`). */
  readonly messageAttributes?: Record<string, unknown>;
  /** System attributes given on send or added by a dead-letter move (`DeadLetterQueueSourceArn`). */
  readonly systemAttributes?: Record<string, unknown>;
  /** `SentTimestamp`, epoch milliseconds: retention counts from here, across restarts. */
  readonly sentTimestamp: number;
  /** `ApproximateReceiveCount`: receives count towards `maxReceiveCount` across restarts. */
  readonly receiveCount: number;
}

/** One line of the journal: a message stored in a queue, received, deleted, or a queue purged. */
type JournalEntry =
  | { readonly put: StoredMessage }
  | { readonly received: string; readonly count: number }
  | { readonly deleted: string }
  | { readonly purged: string };

const JOURNAL_FILE = 'journal.ndjson';

/**
 * The local queues' messages on disk, as an append-only journal of one JSON line per change.
 * A stored message is written at once and flushed to the disk (fsync) before
 * {@link QueueJournal.afterDurable} calls back; the embedded queue answers only then (see
 * `local-queues.ts`), so the receiver's 200, sent after its SendMessage (or SendMessageBatch)
 * call returned, always means the message survives a crash or SIGKILL. The flush runs off the
 * event loop and covers every message stored while the previous one ran (group commit): an fsync
 * takes milliseconds on this kind of disk, and one per message, blocking the process, capped
 * `npm start` at a few hundred calls a second. Receives and deletes are not waited for: losing one in a crash delivers
 * the message again, which SQS consumers must tolerate anyway (at-least-once).
 */
export class QueueJournal {
  readonly #fd: number;
  /** Messages stored so far, and how many of them the last completed flush covers. */
  #stored = 0;
  #flushed = 0;
  /** The flush under way, if any. */
  #flushing: Promise<void> | undefined;
  /** Callers waiting for the messages stored before they asked, oldest first. */
  #waiting: Array<{ readonly upTo: number; readonly then: (error?: Error) => void }> = [];
  /** A failed flush: nothing written after it can be promised durable any more. */
  #failure: Error | undefined;
  /**
   * Lines not written yet: they go to the file in one write, before the next flush or on the
   * next turn of the event loop, rather than one system call per change.
   */
  #unwritten = '';

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /**
   * Opens the journal in `dir` (created when missing) and returns the messages it holds, dropping
   * those older than their queue's retention (`retentionSeconds` by queue name; a moved message
   * keeps its first `sentTimestamp`, as in SQS). The journal is rewritten to just those messages first
   * (written aside, flushed, then renamed over the old one), so it never grows past one run's
   * traffic. A line cut short by a crash (the only line not yet flushed) is skipped.
   */
  static open(
    dir: string,
    retentionSeconds: Readonly<Record<string, number>>,
  ): { journal: QueueJournal; messages: StoredMessage[] } {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, JOURNAL_FILE);
    const messages = retainedMessages(path, retentionSeconds);
    const compacted = `${path}.tmp`;
    const fd = openSync(compacted, 'w');
    if (messages.length > 0) {
      writeSync(fd, messages.map((message) => `${JSON.stringify({ put: message })}\n`).join(''));
    }
    fsyncSync(fd);
    renameSync(compacted, path);
    syncDirectory(dir);
    return { journal: new QueueJournal(fd), messages };
  }

  /**
   * Deletes the journal in `dir`: the next {@link QueueJournal.open} starts with empty queues.
   * Returns how many messages it held, those {@link QueueJournal.open} would have given back.
   */
  static erase(dir: string, retentionSeconds: Readonly<Record<string, number>>): number {
    const path = join(dir, JOURNAL_FILE);
    const discarded = retainedMessages(path, retentionSeconds).length;
    rmSync(path, { force: true });
    return discarded;
  }

  /**
   * Records a message that entered a queue (sent, or moved to the dead-letter queue); durable
   * once {@link QueueJournal.afterDurable} asked after this call calls back.
   */
  put(message: StoredMessage): void {
    this.#append({ put: message });
    this.#stored += 1;
  }

  /**
   * Calls `then` once every message stored so far is on the disk: at once when it already is,
   * otherwise after the next flush, which starts when the one under way ends and covers every
   * message stored until then. `then` gets the error of a failed flush; after one, every later
   * call gets it too (the disk can no longer be trusted with what was written).
   */
  afterDurable(then: (error?: Error) => void): void {
    if (this.#failure !== undefined) {
      then(this.#failure);
      return;
    }
    if (this.#flushed >= this.#stored) {
      then();
      return;
    }
    this.#waiting.push({ upTo: this.#stored, then });
    this.#flushing ??= this.#flush();
  }

  /** Records that a message was received `count` times in all. */
  received(messageId: string, count: number): void {
    this.#append({ received: messageId, count });
  }

  /** Records that a consumer deleted a message. */
  deleted(messageId: string): void {
    this.#append({ deleted: messageId });
  }

  /** Records that every message of a queue was removed (PurgeQueue). */
  purged(queueName: string): void {
    this.#append({ purged: queueName });
  }

  /** Waits for the flush under way, flushes what is written and closes the file. */
  async close(): Promise<void> {
    while (this.#flushing !== undefined) await this.#flushing;
    this.#write();
    fsyncSync(this.#fd);
    closeSync(this.#fd);
  }

  #append(entry: JournalEntry): void {
    if (this.#unwritten === '') setImmediate(() => this.#write());
    this.#unwritten += `${JSON.stringify(entry)}\n`;
  }

  /** Writes the lines not written yet; a failure is kept, as a failed flush is. */
  #write(): void {
    if (this.#unwritten === '') return;
    try {
      writeSync(this.#fd, this.#unwritten);
    } catch (error) {
      this.#failure ??= error as Error;
    }
    this.#unwritten = '';
  }

  /** One fsync covering every message stored when it starts; then the next, if callers wait. */
  async #flush(): Promise<void> {
    const upTo = this.#stored;
    this.#write();
    const error =
      this.#failure ??
      (await new Promise<Error | undefined>((resolve) =>
        fsync(this.#fd, (failure) => resolve(failure ?? undefined)),
      ));
    if (error === undefined) this.#flushed = upTo;
    else this.#failure = error;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) {
      if (this.#failure !== undefined) waiter.then(this.#failure);
      else if (waiter.upTo <= this.#flushed) waiter.then();
      else this.#waiting.push(waiter);
    }
    this.#flushing = this.#waiting.length > 0 ? this.#flush() : undefined;
  }
}

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The journal's messages still within their queue's retention, in the order they were stored. */
function retainedMessages(
  path: string,
  retentionSeconds: Readonly<Record<string, number>>,
): StoredMessage[] {
  const now = Date.now();
  return [...replay(readLines(path)).values()].filter(
    (message) => message.sentTimestamp >= now - (retentionSeconds[message.queueName] ?? 0) * 1000,
  );
}

/** The messages a journal leaves in the queues, by id, in the order they were stored. */
function replay(lines: readonly string[]): Map<string, StoredMessage> {
  const messages = new Map<string, StoredMessage>();
  for (const line of lines) {
    const entry = parseLine(line);
    if (entry === undefined) continue;
    if ('put' in entry) {
      // A dead-letter move stores the same id in the other queue: it replaces the first entry.
      messages.delete(entry.put.messageId);
      messages.set(entry.put.messageId, entry.put);
    } else if ('received' in entry) {
      const message = messages.get(entry.received);
      if (message) messages.set(entry.received, { ...message, receiveCount: entry.count });
    } else if ('deleted' in entry) {
      messages.delete(entry.deleted);
    } else {
      for (const [id, message] of messages) {
        if (message.queueName === entry.purged) messages.delete(id);
      }
    }
  }
  return messages;
}

function parseLine(line: string): JournalEntry | undefined {
  if (line.trim() === '') return undefined;
  try {
    return JSON.parse(line) as JournalEntry;
  } catch {
    return undefined;
  }
}

/** Makes a rename durable: the directory entry itself must reach the disk. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
