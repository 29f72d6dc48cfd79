import type { ArchiveLink, DeliverySummary, QueuedMessage, StoredDelivery } from './delivery.js';
import { MAX_HELD_BODY_BYTES, MAX_KEPT_DELIVERIES } from './limits.js';

/** What the store tells its listeners (the page's live stream). */
export type StoreChange =
  /** A delivery that is new or changed (a replay link, a consumed message). */
  | { readonly kind: 'delivery'; readonly delivery: StoredDelivery }
  /** A delivery no longer kept: the oldest, beyond the limit. */
  | { readonly kind: 'dropped'; readonly id: string };

/** Called with every change of the store. */
export type DeliveryListener = (change: StoreChange) => void;

/** Limits of a {@link DeliveryStore}. */
export interface DeliveryStoreLimits {
  /** @default MAX_KEPT_DELIVERIES */
  readonly deliveries?: number;
  /** @default MAX_HELD_BODY_BYTES */
  readonly heldBodyBytes?: number;
}

/**
 * The last {@link MAX_KEPT_DELIVERIES} deliveries of this run, in memory only, with listeners
 * for the page's live stream. Whole bodies above 64 KiB are held within
 * {@link MAX_HELD_BODY_BYTES}, the oldest let go first.
 */
export class DeliveryStore {
  readonly #deliveries = new Map<string, StoredDelivery>();
  readonly #listeners = new Set<DeliveryListener>();
  /** Deliveries that held a whole body above 64 KiB when added, oldest first. */
  #holding: StoredDelivery[] = [];
  readonly #limit: number;
  readonly #heldLimit: number;

  constructor(limits: DeliveryStoreLimits = {}) {
    this.#limit = limits.deliveries ?? MAX_KEPT_DELIVERIES;
    this.#heldLimit = limits.heldBodyBytes ?? MAX_HELD_BODY_BYTES;
  }

  /** Keeps a delivery, dropping the oldest beyond the limits, and tells the listeners. */
  add(delivery: StoredDelivery): void {
    this.#deliveries.set(delivery.id, delivery);
    const dropped: string[] = [];
    for (const id of this.#deliveries.keys()) {
      if (this.#deliveries.size <= this.#limit) break;
      this.#deliveries.delete(id);
      dropped.push(id);
    }
    this.#holdWithinLimit(delivery);
    for (const id of dropped) this.#tell({ kind: 'dropped', id });
    this.#tell({ kind: 'delivery', delivery });
  }

  /**
   * Links a replay, a queue message or an archive object to a kept delivery (no-op when it is
   * gone) and tells the listeners.
   */
  update(
    id: string,
    change: { replayOf?: string; message?: QueuedMessage; archive?: ArchiveLink },
  ): void {
    const stored = this.#deliveries.get(id);
    if (stored === undefined) return;
    stored.change(change);
    this.#tell({ kind: 'delivery', delivery: stored });
  }

  /** Rows, newest first. */
  list(): DeliverySummary[] {
    return [...this.#deliveries.values()].reverse().map((stored) => stored.summary());
  }

  get(id: string): StoredDelivery | undefined {
    return this.#deliveries.get(id);
  }

  /** Queued deliveries whose message is `messageId`. */
  findByMessageId(messageId: string): StoredDelivery | undefined {
    for (const stored of this.#deliveries.values()) {
      if (stored.message?.messageId === messageId) return stored;
    }
    return undefined;
  }

  /** @returns a function that removes the listener */
  subscribe(listener: DeliveryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Lets go of the oldest whole bodies until those still held fit the limit. */
  #holdWithinLimit(added: StoredDelivery): void {
    if (added.heldBytes > 0) this.#holding.push(added);
    // Opened or dropped deliveries may have let go already.
    this.#holding = this.#holding.filter(
      (stored) => stored.heldBytes > 0 && this.#deliveries.get(stored.id) === stored,
    );
    let held = this.#holding.reduce((total, stored) => total + stored.heldBytes, 0);
    while (held > this.#heldLimit) {
      const oldest = this.#holding.shift();
      if (oldest === undefined) break;
      held -= oldest.heldBytes;
      oldest.letGoOfWholeBody();
    }
  }

  #tell(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
