import type { QueuedMessage } from './delivery.js';
import type { DeliveryStore } from './delivery-store.js';
import type { QueueActivity } from './queue-tap.js';

/** Sends not yet matched to a delivery; the handler answers right after its send, so few wait. */
const MAX_UNMATCHED_SENDS = 100;

/**
 * Receipts of receives not deleted yet (the oldest are forgotten first). A consumer deletes what
 * it received within the visibility timeout, so most are let go soon; a receive never deleted (a
 * consumer that failed, until the message moves to the dead-letter queue; another client) would
 * otherwise be kept as long as `npm start` runs. Ten thousand (about 3 MB) is far more than a
 * consumer holds at once.
 */
export const MAX_TRACKED_RECEIPTS = 10_000;

/**
 * Links queue messages to deliveries and keeps their receive and delete state current in the
 * store. A send is matched to the queued delivery whose body is the message body and whose
 * signature `t` is the message's `signature_timestamp` (the receiver forwards both unchanged).
 */
export class MessageTracker {
  readonly #store: DeliveryStore;
  readonly #unmatched: Array<Extract<QueueActivity, { kind: 'sent' }>> = [];
  readonly #messageByReceipt = new Map<string, string>();

  constructor(store: DeliveryStore) {
    this.#store = store;
  }

  /** Records what the queue did (see `tapQueueRequests`). */
  onActivity(activity: QueueActivity): void {
    switch (activity.kind) {
      case 'sent':
        this.#unmatched.push(activity);
        if (this.#unmatched.length > MAX_UNMATCHED_SENDS) this.#unmatched.shift();
        return;
      case 'received': {
        this.#messageByReceipt.set(activity.receiptHandle, activity.messageId);
        if (this.#messageByReceipt.size > MAX_TRACKED_RECEIPTS) {
          // A Map iterates in insertion order: its first key is the oldest receipt.
          const [oldest] = this.#messageByReceipt.keys();
          if (oldest !== undefined) this.#messageByReceipt.delete(oldest);
        }
        this.#change(activity.messageId, (message) => ({
          ...message,
          receiveCount: message.receiveCount + 1,
        }));
        return;
      }
      case 'deleted': {
        const messageId = this.#messageByReceipt.get(activity.receiptHandle);
        this.#messageByReceipt.delete(activity.receiptHandle);
        if (messageId !== undefined) {
          this.#change(messageId, (message) => ({ ...message, consumed: true }));
        }
        return;
      }
    }
  }

  /** The message a queued delivery became, taken off the unmatched sends; `undefined` if none. */
  claim(body: string, signatureTimestamp: number | undefined): QueuedMessage | undefined {
    const index = this.#unmatched.findIndex(
      (send) =>
        send.body === body && send.attributes.signature_timestamp === String(signatureTimestamp),
    );
    const send = this.#unmatched[index];
    if (send === undefined) return undefined;
    this.#unmatched.splice(index, 1);
    return {
      messageId: send.messageId,
      attributes: send.attributes,
      receiveCount: 0,
      consumed: false,
    };
  }

  #change(messageId: string, change: (message: QueuedMessage) => QueuedMessage): void {
    const stored = this.#store.findByMessageId(messageId);
    const message = stored?.message;
    if (stored === undefined || message === undefined) return;
    this.#store.update(stored.id, { message: change(message) });
  }
}
