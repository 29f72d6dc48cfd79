import { signPayload } from '../../lambda/core/sign.js';
import { signedTextDigest } from '../../lambda/core/signed-text.js';

export { phpJsonEncode } from '../../devkit/booking-payload.js';

import type { HttpCall } from './api-gateway-events.js';

/**
 * The person in {@link bookingPayload}. Distinctive values, so a test can assert they never
 * appear in logs.
 */
export const BOOKER = {
  id: '4711',
  name: 'Zelda Quixote-Marchetti',
  email: 'zelda.quixote@example.org',
} as const;

/**
 * An `event_booked` payload as in spec sections 2.1 to 2.3.
 *
 * @param overrides - top-level fields to replace or add
 */
export function bookingPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: 'event_booked',
    event_at: '2026-11-21T10:15:00+00:00',
    source: 'production',
    data: {
      id: '918273',
      event_id: '5521',
      event_name: 'Sunrise Yoga / Beach',
      event_image: 'https://cdn.example.com/images/sunrise-yoga.jpg',
      user: { ...BOOKER },
      session_start: '2026-12-01 07:00:00',
      session_end: '2026-12-01 08:30:00',
      cost: '€12.50',
    },
    ...overrides,
  };
}

/** A signing key for tests; never a real one. */
export const TEST_KEY = 'whsec_test_7c1e4f0a9b3d42e8a6f1c0d5b8e2a9f4';

/**
 * A webhook call signed like the service signs it.
 *
 * @param body - the exact body text
 * @param options - key, signing time, extra headers, body encoding
 */
export function signedCall(
  body: string,
  options: {
    readonly key?: string;
    readonly timestamp: number;
    readonly headers?: Readonly<Record<string, string>>;
    readonly base64?: boolean;
  },
): HttpCall {
  return {
    body,
    ...(options.base64 === undefined ? {} : { base64: options.base64 }),
    headers: {
      'Content-Type': 'application/json',
      'Service-Signature': signPayload(body, options.key ?? TEST_KEY, options.timestamp),
      ...options.headers,
    },
  };
}

/**
 * A `Service-Signature` value over a body's exact bytes, JSON or not: what a sender that signs
 * whatever it sends would produce. For testing the answers to signed bodies that are not JSON.
 *
 * @param body - the exact body
 * @param key - the key
 * @param timestamp - Unix seconds
 */
export function signRawBody(body: string | Uint8Array, key: string, timestamp: number): string {
  return `t=${timestamp},signature=${signedTextDigest(key, String(timestamp), body).toString('hex')}`;
}
