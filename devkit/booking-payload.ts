/** Options of {@link buildBookingPayload}. */
export interface BookingPayloadOptions {
  /** Value of the `event` field (default `event_booked`); others let you try `FORWARD_EVENTS`. */
  readonly event?: string;
  /** Time of the booking (default now). */
  readonly now?: Date;
  /** Source of randomness in [0, 1) (default `Math.random`); inject a fixed one for repeatable data. */
  readonly random?: () => number;
}

const EVENTS = [
  { id: '4821', name: 'Sunrise Yoga in the Park', price: '€12.50' },
  { id: '5307', name: 'Sourdough Baking for Beginners', price: '€45.00' },
  { id: '6112', name: 'Jazz Night at Le Caveau', price: '€22.00' },
  { id: '7045', name: 'Guided Tour: Street Art / Urban Murals', price: '£18.00' },
] as const;

const USERS = [
  { name: 'Zoë Martin', email: 'zoe.martin@example.com' },
  { name: 'Jonas Müller', email: 'jonas.mueller@example.org' },
  { name: 'Amélie Dubois', email: 'amelie.dubois@example.net' },
  { name: "Seán O'Connor", email: 'sean.oconnor@example.com' },
] as const;

/**
 * A realistic `event_booked` webhook body (spec sections 2.1-2.3) with fake data, encoded the way
 * the most likely sender does: PHP's `json_encode` defaults write `/` as `\/` and non-ASCII
 * characters as `\uXXXX`. Booking and user ids are random numeric text, so repeated sends are
 * distinct bookings.
 */
export function buildBookingPayload(options: BookingPayloadOptions = {}): string {
  const random = options.random ?? Math.random;
  const now = options.now ?? new Date();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const digits = (count: number): string =>
    String(10 ** (count - 1) + Math.floor(random() * 9 * 10 ** (count - 1)));
  const booked = pick(EVENTS);
  const user = pick(USERS);
  const start = new Date(now.getTime() + (2 + Math.floor(random() * 28)) * 86_400_000);
  start.setUTCHours(9 + Math.floor(random() * 10), random() < 0.5 ? 0 : 30, 0, 0);
  const end = new Date(start.getTime() + 90 * 60_000);
  const payload = {
    event: options.event ?? 'event_booked',
    event_at: `${now.toISOString().slice(0, 19)}+00:00`,
    source: 'sandbox',
    data: {
      id: digits(6),
      event_id: booked.id,
      event_name: booked.name,
      event_image: `https://cdn.example.com/events/${booked.id}/cover.jpg`,
      user: { id: digits(5), ...user },
      session_start: localDateTime(start),
      session_end: localDateTime(end),
      cost: booked.price,
    },
  };
  return phpJsonEncode(payload);
}

/** `YYYY-MM-DD HH:MM:SS`, the spec's session time format (no offset). */
function localDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * JSON as PHP's `json_encode` writes it by default (`/` as `\/`, non-ASCII as `\uXXXX`). Safe as
 * plain replacements: in JSON text, `/` and non-ASCII characters can only occur inside strings.
 *
 * @param value - any JSON-serializable value
 */
export function phpJsonEncode(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('/', '\\/')
    .replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}
