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

/**
 * Sends one batch: one item alone by the single-item API, more by the batch API.
 *
 * @param items - 1 to `limits.items` items, at most `limits.bytes` together (a single item may be larger)
 * @param timeLeftMs - time the call may take, retries included
 * @returns one outcome per item, in order: `undefined` when it was taken, else why not
 * @throws when the call as a whole failed, which is every item's outcome
 */
export type SendBatch<Item> = (items: readonly Item[], timeLeftMs: number) => Promise<unknown[]>;

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
 * Sends the items given during one turn of the event loop together, in as few calls as the
 * limits allow, in the order given. A Lambda environment runs one invocation at a time, so there
 * each call carries one item, by the single-item API, exactly as before; `npm start` runs the
 * same handler for every concurrent request in one process, where the SendMessage and PutRecord
 * round trips (each an HTTP exchange and an SDK pipeline) were most of its CPU per call, and a
 * burst's sends now share them.
 *
 * A batch's call gets the time left by its most pressed item. An item's outcome is never
 * another's: a batch call reports each entry, and a failure of the whole call is each item's.
 *
 * @param limits - what one call takes
 * @param sendBatch - makes one call
 * @param now - clock in milliseconds
 * @returns `put(item, deadlineAt)`: resolves `undefined` when the item was taken, else to the error
 */
export function turnBatches<Item>(
  limits: BatchLimits<Item>,
  sendBatch: SendBatch<Item>,
  now: () => number,
): (item: Item, deadlineAt: number) => Promise<unknown> {
  let waiting: Waiting<Item>[] = [];
  const flush = () => {
    const taken = waiting;
    waiting = [];
    for (const batch of splitWithin(taken, limits)) void send(batch);
  };
  const send = async (batch: readonly Waiting<Item>[]) => {
    const deadlineAt = Math.min(...batch.map((entry) => entry.deadlineAt));
    let outcomes: readonly unknown[];
    try {
      outcomes = await sendBatch(
        batch.map((entry) => entry.item),
        Math.max(1, deadlineAt - now()),
      );
      if (outcomes.length !== batch.length) {
        // A bug in the sender; no item may pass for taken on a missing outcome.
        throw new WebhookReceiverError(
          `a batch of ${batch.length} items got ${outcomes.length} outcomes`,
        );
      }
    } catch (error) {
      outcomes = batch.map(() => error);
    }
    batch.forEach((entry, index) => {
      entry.settle(outcomes[index]);
    });
  };
  return (item, deadlineAt) =>
    new Promise((settle) => {
      // setImmediate runs after the event loop's poll phase: every request read in the same
      // turn has made its call by then.
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ item, deadlineAt, settle });
    });
}

interface Waiting<Item> {
  readonly item: Item;
  readonly deadlineAt: number;
  readonly settle: (outcome: unknown) => void;
}

/** Splits `entries` in order into runs that each fit one call (an oversized item goes alone). */
function splitWithin<Item>(
  entries: readonly Waiting<Item>[],
  limits: BatchLimits<Item>,
): Waiting<Item>[][] {
  const batches: Waiting<Item>[][] = [];
  let current: Waiting<Item>[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = limits.bytesOf(entry.item);
    if (current.length > 0 && (current.length === limits.items || bytes + size > limits.bytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
