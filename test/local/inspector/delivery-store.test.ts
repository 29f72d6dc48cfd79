import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoredDelivery } from '../../../local/inspector/delivery.js';
import { DeliveryStore, type StoreChange } from '../../../local/inspector/delivery-store.js';
import { MAX_KEPT_BODY_BYTES, MAX_KEPT_DELIVERIES } from '../../../local/inspector/limits.js';

const delivery = (index: number, body = '{"event":"event_booked"}') =>
  new StoredDelivery({
    requestId: `request-${index}`,
    receivedAt: 1_795_000_000_000 + index,
    method: 'POST',
    target: '/webhook',
    rawHeaders: ['Content-Type', 'application/json'],
    body: Buffer.from(body),
    sourceIp: '127.0.0.1',
    statusCode: 401,
    responseBody: '{"error":"unauthorized","reason":"missing_header"}',
  });

describe('Class: DeliveryStore', () => {
  it('keeps the last 500 deliveries, newest first, and tells its listeners which one it dropped', () => {
    // Prepare
    const store = new DeliveryStore();
    const changes: StoreChange[] = [];
    store.subscribe((change) => changes.push(change));

    // Act
    for (let index = 0; index <= MAX_KEPT_DELIVERIES; index += 1) store.add(delivery(index));
    const rows = store.list();

    // Assess
    expect(rows).toHaveLength(500);
    expect(rows[0]?.id).toBe('request-500');
    expect(rows.at(-1)?.id).toBe('request-1');
    expect(store.get('request-0')).toBeUndefined();
    expect(changes.slice(-2)).toEqual([
      { kind: 'dropped', id: 'request-0' },
      { kind: 'delivery', delivery: store.get('request-500') },
    ]);
  });

  it('holds whole bodies above 64 KiB within its budget until opened, letting go of the oldest first', () => {
    // Prepare: room for two such bodies
    const large = JSON.stringify({ padding: 'x'.repeat(MAX_KEPT_BODY_BYTES) });
    const store = new DeliveryStore({ heldBodyBytes: 2 * large.length });

    // Act
    for (let index = 0; index < 3; index += 1) store.add(delivery(index, large));
    const held = store.get('request-1')?.wholeBody?.toString();
    const opened = store.get('request-2');
    opened?.diagnosed({ diagnosis: ['a hint'] });
    const detail = opened?.detail();
    const letGo = store.get('request-0')?.detail();

    // Assess
    expect(held).toBe(large);
    expect(detail).toMatchObject({
      diagnosis: ['a hint'],
      bodyBytes: large.length,
      bodyTruncated: true,
      bodySha256: createHash('sha256').update(large).digest('hex'),
      body: large.slice(0, MAX_KEPT_BODY_BYTES),
    });
    expect(opened?.heldBytes).toBe(0);
    expect(letGo).toMatchObject({ bodyBytes: large.length, bodyTruncated: true });
    expect(letGo?.bodySha256).toBeUndefined();
    expect(store.get('request-0')?.wholeBody).toBeUndefined();
  });
});
