import { describe, expect, it } from 'vitest';
import { buildBookingPayload } from '../../devkit/booking-payload.js';

const NOW = new Date('2026-03-01T10:15:30Z');

describe('Function: buildBookingPayload', () => {
  it('builds an event_booked body with every field of spec sections 2.1-2.3 in its format', () => {
    // Act
    const payload = JSON.parse(buildBookingPayload({ now: NOW }));

    // Assess
    expect(payload).toEqual({
      event: 'event_booked',
      event_at: '2026-03-01T10:15:30+00:00',
      source: expect.any(String),
      data: {
        id: expect.stringMatching(/^\d+$/),
        event_id: expect.stringMatching(/^\d+$/),
        event_name: expect.any(String),
        event_image: expect.stringMatching(/^https:\/\/\S+$/),
        user: {
          id: expect.stringMatching(/^\d+$/),
          name: expect.any(String),
          email: expect.stringMatching(/^\S+@\S+\.\S+$/),
        },
        session_start: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        session_end: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        cost: expect.stringMatching(/^\D\d+\.\d{2}$/),
      },
    });
    expect(payload.data.session_end > payload.data.session_start).toBe(true);
  });

  it('escapes slashes and non-ASCII characters as PHP json_encode does by default', () => {
    // Prepare
    const firstOfEach = (): number => 0;

    // Act
    const text = buildBookingPayload({ now: NOW, random: firstOfEach });

    // Assess
    expect(text).toContain(
      '"event_image":"https:\\/\\/cdn.example.com\\/events\\/4821\\/cover.jpg"',
    );
    expect(text).toContain('"name":"Zo\\u00eb Martin"');
    expect(text).toContain('"cost":"\\u20ac12.50"');
    expect(text).toMatch(/^[\x20-\x7e]+$/);
    expect(text).not.toMatch(/[^\\]\//);
  });

  it('uses the event name it is given', () => {
    // Act
    const payload = JSON.parse(buildBookingPayload({ event: 'event_cancelled' }));

    // Assess
    expect(payload.event).toBe('event_cancelled');
  });

  it('gives each call a different booking id', () => {
    // Act
    const ids = new Set(
      Array.from({ length: 20 }, () => JSON.parse(buildBookingPayload()).data.id as string),
    );

    // Assess
    expect(ids.size).toBeGreaterThan(1);
  });
});
