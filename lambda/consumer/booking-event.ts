import * as v from 'valibot';

/**
 * The `event_booked` webhook payload (spec sections 2.1 to 2.3) as a valibot schema, for
 * consumers of the queue. Objects are loose: fields the spec does not list are kept, so a sender
 * adding a field breaks nobody and nothing is lost when a consumer passes the event on.
 */

const numericText = v.pipe(v.string(), v.regex(/^\d+$/, 'numeric text'));
// Spec 2.2: local date and time, space separated, no offset.
const localDateTime = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'YYYY-MM-DD HH:MM:SS'),
);

/** Spec 2.3: the person who booked. Personal data: do not log `name` or `email`. */
export const BookingUserSchema = v.looseObject({
  id: numericText,
  name: v.string(),
  email: v.string(),
});

/** Spec 2.2: the `data` object of `event_booked`. */
export const BookingDataSchema = v.looseObject({
  id: numericText,
  event_id: numericText,
  event_name: v.string(),
  event_image: v.pipe(v.string(), v.url('absolute URL')),
  user: BookingUserSchema,
  session_start: localDateTime,
  session_end: localDateTime,
  // A currency symbol then an amount with two decimals; thousands separators are tolerated.
  cost: v.pipe(v.string(), v.regex(/^\D+\d[\d,]*\.\d{2}$/, 'currency symbol and amount')),
});

/** Spec 2.1 with `data` as 2.2: the whole `event_booked` payload. */
export const BookingEventSchema = v.looseObject({
  event: v.literal('event_booked'),
  // ISO 8601 with a numeric UTC offset, as the spec shows it.
  event_at: v.pipe(
    v.string(),
    v.regex(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?[+-]\d{2}:\d{2}$/,
      'ISO 8601 with offset',
    ),
  ),
  source: v.string(),
  data: BookingDataSchema,
});

/** A parsed `event_booked` payload; unknown fields are kept (typed as `unknown`). */
export type BookingEvent = v.InferOutput<typeof BookingEventSchema>;

/** Result of {@link parseBookingEvent}. */
export type ParseBookingEventResult =
  | {
      readonly ok: true;
      readonly event: BookingEvent;
      /**
       * The endpoint the booking was sent to (the message's `endpoint` attribute), when the
       * receiver serves several endpoints; `undefined` for a receiver with one.
       */
      readonly endpoint: string | undefined;
    }
  | {
      readonly ok: false;
      readonly reason: 'body_not_json' | 'not_a_booking_event';
      /** Where the payload differs from the schema, e.g. `data.cost: expected currency symbol…`; never field values. */
      readonly issues: readonly string[];
    };

/**
 * Parses a queue message body (the webhook body exactly as the sender sent it) into a typed
 * {@link BookingEvent}. The issues name paths and expectations only, never the received values,
 * so they are safe to log even when the failing field is a name or an e-mail address.
 *
 * @param body - the message body text
 * @param endpoint - the message's `endpoint` attribute, if it has one (see {@link endpointOf})
 */
export function parseBookingEvent(body: string, endpoint?: string): ParseBookingEventResult {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'body_not_json', issues: ['body: expected JSON'] };
  }
  const result = v.safeParse(BookingEventSchema, value);
  if (result.success) return { ok: true, event: result.output, endpoint };
  return {
    ok: false,
    reason: 'not_a_booking_event',
    issues: result.issues.map((issue) => `${v.getDotPath(issue) ?? 'payload'}: ${describe(issue)}`),
  };
}

// Built from the schema's expectations only: valibot's own messages quote the received value.
function describe(issue: v.BaseIssue<unknown>): string {
  if (issue.received === 'undefined') return 'missing';
  // Every validation above has a message naming the expected form and nothing else.
  return `expected ${issue.kind === 'validation' ? issue.message : issue.expected}`;
}

/**
 * The endpoint a queue message was sent to: its String attribute `endpoint`, set by a receiver
 * serving several endpoints (`ENDPOINT_SECRET_IDS`); `undefined` otherwise.
 *
 * @param message - an SQS record (`messageAttributes`) as Lambda delivers it
 */
export function endpointOf(message: {
  readonly messageAttributes?: Readonly<Record<string, { stringValue?: string | undefined }>>;
}): string | undefined {
  return message.messageAttributes?.endpoint?.stringValue;
}
