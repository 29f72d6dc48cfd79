import { describe, expect, it } from 'vitest';
import { endpointOf, parseBookingEvent } from '../../../lambda/consumer/booking-event.js';
import { BOOKER, bookingPayload, phpJsonEncode } from '../../support/booking.js';

describe('Function: parseBookingEvent', () => {
  it('parses a PHP-encoded event_booked payload into typed fields', () => {
    // Prepare
    const body = phpJsonEncode(bookingPayload());

    // Act
    const result = parseBookingEvent(body);

    // Assess
    expect(result).toEqual({ ok: true, event: bookingPayload(), endpoint: undefined });
    expect(result.ok && result.event.data.user.email).toBe(BOOKER.email);
  });

  it("exposes the endpoint a booking was sent to, read from the message's endpoint attribute", () => {
    // Prepare: an SQS record as Lambda delivers it from a receiver with named endpoints
    const record = {
      body: phpJsonEncode(bookingPayload()),
      messageAttributes: { endpoint: { stringValue: 'eu-west', dataType: 'String' } },
    };

    // Act
    const result = parseBookingEvent(record.body, endpointOf(record));

    // Assess
    expect(result).toEqual({ ok: true, event: bookingPayload(), endpoint: 'eu-west' });
    expect(endpointOf({ messageAttributes: {} })).toBeUndefined();
  });

  it('keeps fields the spec does not list, at every level', () => {
    // Prepare
    const payload = bookingPayload({ delivery_id: 'd-1' });
    const data = payload.data as Record<string, unknown>;
    payload.data = { ...data, seats: 2, user: { ...BOOKER, locale: 'de' } };

    // Act
    const result = parseBookingEvent(JSON.stringify(payload));

    // Assess
    expect(result).toMatchObject({
      ok: true,
      event: { delivery_id: 'd-1', data: { seats: 2, user: { locale: 'de' } } },
    });
  });

  it('accepts costs with any currency symbol and thousands separators', () => {
    // Prepare
    const payload = bookingPayload();
    const costs = ['€12.50', '$0.99', '£1,250.00', 'CHF 30.00'];

    // Act
    const results = costs.map((cost) =>
      parseBookingEvent(
        JSON.stringify({ ...payload, data: { ...(payload.data as object), cost } }),
      ),
    );

    // Assess
    expect(results.map((result) => result.ok)).toEqual([true, true, true, true]);
  });

  it('reports body_not_json when the body is not JSON', () => {
    // Act
    const result = parseBookingEvent('event=event_booked');

    // Assess
    expect(result).toEqual({ ok: false, reason: 'body_not_json', issues: ['body: expected JSON'] });
  });

  it.each([
    ['another event', { event: 'event_cancelled' }, 'event: expected "event_booked"'],
    [
      'an event_at without offset',
      { event_at: '2026-11-21T10:15:00' },
      'event_at: expected ISO 8601 with offset',
    ],
    ['no data', { data: undefined }, 'data: missing'],
  ])('reports where the payload differs when it has %s', (_, overrides, issue) => {
    // Act
    const result = parseBookingEvent(JSON.stringify(bookingPayload(overrides)));

    // Assess
    expect(result).toMatchObject({ ok: false, reason: 'not_a_booking_event' });
    expect(!result.ok && result.issues).toContain(issue);
  });

  it.each([
    ['id', '91-82', 'data.id: expected numeric text'],
    ['session_start', '2026-12-01T07:00:00', 'data.session_start: expected YYYY-MM-DD HH:MM:SS'],
    ['cost', '12.5', 'data.cost: expected currency symbol and amount'],
    ['event_image', 'sunrise.jpg', 'data.event_image: expected absolute URL'],
  ])('rejects data.%s = %j', (field, value, issue) => {
    // Prepare
    const payload = bookingPayload();
    payload.data = { ...(payload.data as object), [field]: value };

    // Act
    const result = parseBookingEvent(JSON.stringify(payload));

    // Assess
    expect(!result.ok && result.issues).toEqual([issue]);
  });

  it('never repeats received values in its issues, so they can be logged', () => {
    // Prepare
    const payload = bookingPayload();
    payload.data = {
      ...(payload.data as object),
      id: BOOKER.email,
      user: { id: BOOKER.name, name: 42, email: ['x'] },
    };

    // Act
    const result = parseBookingEvent(JSON.stringify(payload));

    // Assess
    const issues = !result.ok ? result.issues.join('\n') : '';
    expect(issues).toContain('data.user.name: expected string');
    expect(issues).not.toContain(BOOKER.email);
    expect(issues).not.toContain(BOOKER.name);
    expect(issues).not.toContain('42');
  });
});
