import { describe, expect, it } from 'vitest';
import { describeDelivery } from '../../../local/inspector/delivery.js';
import { DeliveryStore, MAX_KEPT_DELIVERIES } from '../../../local/inspector/delivery-store.js';

const delivery = (index: number) =>
  describeDelivery(
    {
      requestId: `request-${index}`,
      receivedAt: 1_795_000_000_000 + index,
      method: 'POST',
      target: '/webhook',
      rawHeaders: ['Content-Type', 'application/json'],
      body: Buffer.from('{"event":"event_booked"}'),
      sourceIp: '127.0.0.1',
      statusCode: 401,
      responseBody: '{"error":"unauthorized","reason":"missing_header"}',
    },
    () => [],
  );

describe('Class: DeliveryStore', () => {
  it('keeps the last 500 deliveries, newest first', () => {
    // Prepare
    const store = new DeliveryStore();

    // Act
    for (let index = 0; index <= MAX_KEPT_DELIVERIES; index += 1) store.add(delivery(index));
    const rows = store.list();

    // Assess
    expect(MAX_KEPT_DELIVERIES).toBe(500);
    expect(rows).toHaveLength(500);
    expect(rows[0]?.id).toBe('request-500');
    expect(rows.at(-1)?.id).toBe('request-1');
    expect(store.get('request-0')).toBeUndefined();
  });
});
