import type { DeliveryDetail, DeliverySummary, QueuedMessage, StoredDelivery } from './delivery.js';
import { summaryOf } from './delivery.js';

/** How many deliveries the inspector keeps (the oldest go first). */
export const MAX_KEPT_DELIVERIES = 500;

/** Called with a row that is new or changed (a replay link, a consumed message). */
export type DeliveryListener = (summary: DeliverySummary) => void;

/**
 * The last {@link MAX_KEPT_DELIVERIES} deliveries of this run, in memory only, with listeners
 * for the page's live stream.
 */
export class DeliveryStore {
  readonly #deliveries = new Map<string, StoredDelivery>();
  readonly #listeners = new Set<DeliveryListener>();
  readonly #limit: number;

  /** @param limit - how many deliveries to keep (default {@link MAX_KEPT_DELIVERIES}) */
  constructor(limit = MAX_KEPT_DELIVERIES) {
    this.#limit = limit;
  }

  /** Keeps a delivery, dropping the oldest beyond the limit, and tells the listeners. */
  add(delivery: StoredDelivery): void {
    this.#deliveries.set(delivery.detail.id, delivery);
    for (const id of this.#deliveries.keys()) {
      if (this.#deliveries.size <= this.#limit) break;
      this.#deliveries.delete(id);
    }
    this.#publish(delivery.detail);
  }

  /** Replaces fields of a kept delivery (no-op when it is gone) and tells the listeners. */
  update(id: string, change: { replayOf?: string; message?: QueuedMessage }): void {
    const stored = this.#deliveries.get(id);
    if (stored === undefined) return;
    const detail: DeliveryDetail = { ...stored.detail, ...change };
    this.#deliveries.set(id, { ...stored, detail });
    this.#publish(detail);
  }

  /** Rows, newest first. */
  list(): DeliverySummary[] {
    return [...this.#deliveries.values()].reverse().map((stored) => summaryOf(stored.detail));
  }

  get(id: string): StoredDelivery | undefined {
    return this.#deliveries.get(id);
  }

  /** Queued deliveries whose message is `messageId`. */
  findByMessageId(messageId: string): StoredDelivery | undefined {
    for (const stored of this.#deliveries.values()) {
      if (stored.detail.message?.messageId === messageId) return stored;
    }
    return undefined;
  }

  /** @returns a function that removes the listener */
  subscribe(listener: DeliveryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #publish(detail: DeliveryDetail): void {
    const summary = summaryOf(detail);
    for (const listener of this.#listeners) listener(summary);
  }
}
