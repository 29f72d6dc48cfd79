import { describe, expect, it } from 'vitest';
import { StoredDelivery } from '../../../local/inspector/delivery.js';
import { DeliveryStore } from '../../../local/inspector/delivery-store.js';
import { MAX_TRACKED_RECEIPTS, MessageTracker } from '../../../local/inspector/message-tracker.js';

const BODY = '{"event":"event_booked"}';
const SIGNED_AT = 1_795_000_000;

/** A store holding one queued delivery linked to message `message-1`, and its tracker. */
function trackedDelivery(): { store: DeliveryStore; tracker: MessageTracker } {
  const store = new DeliveryStore();
  const tracker = new MessageTracker(store);
  tracker.onActivity({
    kind: 'sent',
    messageId: 'message-1',
    body: BODY,
    attributes: { signature_timestamp: String(SIGNED_AT) },
  });
  const delivery = new StoredDelivery({
    requestId: 'request-1',
    receivedAt: SIGNED_AT * 1000,
    method: 'POST',
    target: '/webhook',
    rawHeaders: ['Service-Signature', `t=${SIGNED_AT},v1=00`],
    body: Buffer.from(BODY),
    sourceIp: '127.0.0.1',
    statusCode: 200,
    responseBody: '{"status":"queued"}',
  });
  const message = tracker.claim(BODY, SIGNED_AT);
  if (message !== undefined) delivery.change({ message });
  store.add(delivery);
  return { store, tracker };
}

describe('Class: MessageTracker', () => {
  it('marks a message consumed when the receipt of one of its receives is deleted', () => {
    // Prepare
    const { store, tracker } = trackedDelivery();

    // Act
    tracker.onActivity({ kind: 'received', messageId: 'message-1', receiptHandle: 'receipt-1' });
    tracker.onActivity({ kind: 'deleted', receiptHandle: 'receipt-1' });

    // Assess
    expect(store.get('request-1')?.message).toMatchObject({ receiveCount: 1, consumed: true });
  });

  it('keeps the receipts of the last receives only, forgetting the oldest first', () => {
    // Prepare: one receive, then as many more as the tracker keeps, none of them deleted (a
    // consumer that fails and lets the visibility expire, a client that never deletes)
    const { store, tracker } = trackedDelivery();
    const receive = (index: number): void =>
      tracker.onActivity({
        kind: 'received',
        messageId: 'message-1',
        receiptHandle: `receipt-${index}`,
      });

    // Act
    for (let index = 0; index <= MAX_TRACKED_RECEIPTS; index += 1) receive(index);
    tracker.onActivity({ kind: 'deleted', receiptHandle: 'receipt-0' });
    const afterForgotten = store.get('request-1')?.message;
    tracker.onActivity({ kind: 'deleted', receiptHandle: `receipt-${MAX_TRACKED_RECEIPTS}` });
    const afterKept = store.get('request-1')?.message;

    // Assess
    expect(afterForgotten).toMatchObject({
      receiveCount: MAX_TRACKED_RECEIPTS + 1,
      consumed: false,
    });
    expect(afterKept?.consumed).toBe(true);
  });
});
