import { WebhookReceiverError } from '../core/errors.js';

/** What one call of a batch API allows (the service's limits, which cannot be changed). */
export interface BatchLimits<Item> {
  /** Most items in one call. */
  readonly items: number;
  /** Most bytes in one call, as `bytesOf` counts them. */
  readonly bytes: number;
  /** The bytes one item counts for against `bytes`. */
  readonly bytesOf: (item: Item) => number;
}

/** What a batch call said of one entry: `undefined` when it was taken. */
export type EntryOutcome =
  | undefined
  | {
      readonly error: BatchEntryError;
      /** The service's fault rather than the entry's: worth sending again alone. */
      readonly retryAlone: boolean;
    };

/** The two APIs of a service that takes one item or a batch. */
export interface BatchSender<Item> {
  /** What one batch call takes. */
  readonly limits: BatchLimits<Item>;
  /**
   * Sends one item by the single-item API (SDK retries included).
   * @throws when it was not taken
   */
  one(item: Item, timeLeftMs: number): Promise<void>;
  /**
   * Sends 2 to `limits.items` items, at most `limits.bytes` together, by the batch API.
   * @returns one outcome per item, in order
   * @throws when the call as a whole failed, which is every item's failure
   */
  many(items: readonly Item[], timeLeftMs: number): Promise<readonly EntryOutcome[]>;
}

/** One item of a batch call that the service refused, while others may have been taken. */
export class BatchEntryError extends WebhookReceiverError {
  /**
   * @param code - the service's error code for the entry
   * @param detail - the service's message for it, if any
   */
  constructor(
    readonly code: string,
    detail: string | undefined,
  ) {
    super(detail === undefined ? code : `${code}: ${detail}`);
  }
}

/**
 * Sends items together, in as few calls as the limits allow: those given during one turn of the
 * event loop, and, while calls are in flight, every item given meanwhile, which goes in the next
 * call once they are back. An item alone goes by the single-item API: a Lambda environment runs
 * one invocation at a time, and its previous call is always back, so there every item goes alone
 * and at once, as it did before batching. `npm start` runs the same handler for every concurrent
 * request in one process, where the SendMessage and PutRecord round trips (each an HTTP exchange
 * and an SDK pipeline) were most of its CPU per call, and its calls now share them. Waiting for
 * the call in flight makes the batches larger (`docs/performance.md` has what each step bought).
 * The price, in `npm start` only: a call in flight that hangs holds the
 * items behind it until its own deadline (5 s for the queue, 500 ms for the archive), time their
 * own deadlines then lack; a hung local queue fails them all anyway.
 *
 * A batch's call gets the time left to its most pressed item (deadlines that far apart go in
 * separate calls, see {@link DEADLINE_SPREAD_MS}). An item's outcome is never another's: a batch
 * call reports each entry, an entry refused for the service's fault is sent again alone, and a
 * failure of the whole call is each item's.
 *
 * @param sender - the service's two APIs and its batch limits
 * @param now - clock in milliseconds
 * @returns `put(item, deadlineAt)`: resolves `undefined` when the item was taken, else to the
 *   error; never rejects
 */
export function turnBatches<Item>(
  sender: BatchSender<Item>,
  now: () => number,
): (item: Item, deadlineAt: number) => Promise<unknown> {
  let waiting: Waiting<Item>[] = [];
  let sending = 0;
  let flushing = false;
  const scheduleFlush = () => {
    if (flushing || sending > 0 || waiting.length === 0) return;
    flushing = true;
    // setImmediate runs after the event loop's poll phase: every request read in the same
    // turn has made its call by then.
    setImmediate(flush);
  };
  const flush = () => {
    flushing = false;
    const turn = waiting;
    waiting = [];
    for (const batch of splitWithin(turn, sender.limits)) {
      sending += 1;
      void send(batch).finally(() => {
        sending -= 1;
        scheduleFlush();
      });
    }
  };
  const send = async (batch: readonly Waiting<Item>[]) => {
    const deadlineAt = Math.min(...batch.map((entry) => entry.deadlineAt));
    const timeLeft = () => Math.max(1, deadlineAt - now());
    let outcomes: readonly unknown[];
    try {
      outcomes = await sendOnce(
        sender,
        batch.map((entry) => entry.item),
        timeLeft,
      );
    } catch (error) {
      // `undefined` means taken: a call that failed must never read as one.
      const failure = error ?? new WebhookReceiverError('the batch call failed without an error');
      outcomes = batch.map(() => failure);
    }
    batch.forEach((entry, index) => {
      entry.settle(outcomes[index]);
    });
  };
  return (item, deadlineAt) =>
    new Promise((settle) => {
      waiting.push({ item, deadlineAt, settle });
      scheduleFlush();
    });
}

/** One batch's items through the sender: per item, `undefined` when taken, else the error. */
async function sendOnce<Item>(
  sender: BatchSender<Item>,
  items: readonly Item[],
  timeLeft: () => number,
): Promise<readonly unknown[]> {
  const [only] = items;
  if (items.length === 1 && only !== undefined) {
    await sender.one(only, timeLeft());
    return [undefined];
  }
  const outcomes = await sender.many(items, timeLeft());
  if (outcomes.length !== items.length) {
    // A bug in the sender; no item may pass for taken on a missing outcome.
    throw new WebhookReceiverError(
      `a batch of ${items.length} items got ${outcomes.length} outcomes`,
    );
  }
  return Promise.all(
    outcomes.map(async (outcome, index) => {
      if (outcome === undefined) return undefined;
      const item = items[index];
      if (!outcome.retryAlone || item === undefined) return outcome.error;
      try {
        await sender.one(item, timeLeft());
        return undefined;
      } catch (error) {
        return error ?? outcome.error;
      }
    }),
  );
}

interface Waiting<Item> {
  readonly item: Item;
  readonly deadlineAt: number;
  readonly settle: (outcome: unknown) => void;
}

/**
 * Most a batch's items' deadlines may differ: a batch call gets the time left to its most pressed
 * item, so an item whose time is nearly up (a body trickled in for most of the local server's
 * 30 s) goes in a call of its own rather than cut short its turn's other calls.
 */
const DEADLINE_SPREAD_MS = 1000;

/**
 * Splits `entries` into batches that each fit one call, each item in the first batch it fits in
 * (its limits, and deadlines within {@link DEADLINE_SPREAD_MS} of the batch's first), so items
 * keep their order within a batch; an item over the byte limit goes alone.
 */
function splitWithin<Item>(
  entries: readonly Waiting<Item>[],
  limits: BatchLimits<Item>,
): Waiting<Item>[][] {
  // A Lambda environment's every turn: nothing to size (a body can be 256 KiB).
  if (entries.length === 1) return [[...entries]];
  const batches: Array<{ entries: Waiting<Item>[]; bytes: number }> = [];
  for (const entry of entries) {
    const size = limits.bytesOf(entry.item);
    const fits = batches.find(
      (batch) =>
        batch.entries.length < limits.items &&
        batch.bytes + size <= limits.bytes &&
        Math.abs(entry.deadlineAt - (batch.entries[0]?.deadlineAt ?? entry.deadlineAt)) <=
          DEADLINE_SPREAD_MS,
    );
    if (fits === undefined) batches.push({ entries: [entry], bytes: size });
    else {
      fits.entries.push(entry);
      fits.bytes += size;
    }
  }
  return batches.map((batch) => batch.entries);
}
