import { describe, expect, it } from 'vitest';
import { BodyNotJsonError, signPayload } from '../../../lambda/core/index.js';
import { senderVectors } from './sender-vectors.js';

// Calls signed once over the squashed body as sent: signPayload must agree with the sender byte for byte.
const asSentVectors = senderVectors.filter(
  (vector) =>
    vector.expect.ok &&
    vector.expect.form === 'as_sent' &&
    vector.header.split('signature=').length === 2,
);

describe('Function: signPayload', () => {
  it.each(asSentVectors)('produces the header the real sender produced for $name', (vector) => {
    // Act
    const header = signPayload(vector.body, vector.key, vector.t);

    // Assess
    expect(header).toBe(vector.header);
  });

  it('signs bytes exactly as it signs their UTF-8 text', () => {
    // Prepare
    const [vector] = asSentVectors;
    if (vector === undefined) throw new Error('no vector');

    // Act
    const header = signPayload(Buffer.from(vector.body, 'utf8'), vector.key, vector.t);

    // Assess
    expect(header).toBe(vector.header);
  });

  it('prints t and a lowercase 64-character hex signature', () => {
    // Act
    const header = signPayload('{"a":1}', 'key', 0);

    // Assess
    expect(header).toMatch(/^t=0,signature=[0-9a-f]{64}$/);
  });

  it('throws BodyNotJsonError for a body that is not a single JSON value', () => {
    // Act & Assess
    expect(() => signPayload('event=event_booked', 'key', 1)).toThrow(BodyNotJsonError);
    expect(() => signPayload('event=event_booked', 'key', 1)).toThrow(
      expect.objectContaining({ name: 'BodyNotJsonError' }),
    );
  });

  it.each([
    ['an empty key', '', 1, /key is empty/],
    ['a negative timestamp', 'key', -1, /non-negative integer/],
    ['a fractional timestamp', 'key', 1.5, /non-negative integer/],
    ['a timestamp past 2^53', 'key', 2 ** 53, /non-negative integer/],
  ])('throws a RangeError for %s', (_, key, timestamp, message) => {
    // Act & Assess
    expect(() => signPayload('{}', key, timestamp)).toThrow(message);
    expect(() => signPayload('{}', key, timestamp)).toThrow(RangeError);
  });
});
