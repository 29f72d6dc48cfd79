import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { phpJsonEncode } from '../devkit/booking-payload.js';
import { squashJson } from '../lambda/core/canonical-json.js';
import { signPayload, verifySignature } from '../lambda/core/index.js';
import { compareOperations } from './measure.js';
import type { BenchSection, BenchTable } from './section.js';

const KEY = 'bench-endpoint-key-5d8e2f7a9c1b3064';

/** An `event_booked` payload (spec 2.1-2.3) with realistic field lengths: about 1 KB compact. */
export function eventBooked(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: 'event_booked',
    event_at: '2024-05-17T09:30:00+00:00',
    source: 'production-eu-west-1',
    data: {
      id: '4821337',
      event_id: '90712',
      event_name: 'Atelier céramique du samedi : tournage, émaillage et cuisson / Pottery weekend',
      event_image:
        'https://cdn.example.com/images/events/90712/cover/1600x900/atelier-ceramique-samedi-tournage-emaillage.jpg?v=1715939400&fit=crop',
      user: {
        id: '552140',
        name: 'Zoë Müller-Dubois de la Fontaine',
        email: 'zoe.muller-dubois@example-mail.com',
      },
      session_start: '2024-06-01 14:00:00',
      session_end: '2024-06-01 16:30:00',
      cost: '€125.00',
      ...extra,
    },
  };
}

/** Free-text notes that pad a payload to a size; French, so raw UTF-8 bodies stay non-ASCII. */
export function notes(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `Note ${i} : tablier conseillé, l'argile est fournie / ${i}`,
  );
}

/**
 * PHP's `json_encode($value, JSON_PRETTY_PRINT)`: four-space indentation (as `JSON.stringify`
 * indents) with json_encode's default escapes, `/` as `\/` and non-ASCII as `\uXXXX`.
 */
function phpPrettyJson(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(/[/\u0080-\uffff]/g, (character) =>
    character === '/' ? '\\/' : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A body of the bench: its JSON text as the handler receives it from API Gateway. */
export interface BenchBody {
  readonly name: string;
  readonly text: string;
  /** Whether the target is the compact one (1.5x) or the pretty one (2.5x). */
  readonly pretty: boolean;
  /**
   * Given as bytes, as the handler gets a body the front door base64-encoded (binary media
   * types); otherwise as a string.
   */
  readonly bytes?: boolean;
}

// ASCII: PHP's json_encode, the likely sender, escapes non-ASCII as \uXXXX. UTF-8: raw non-ASCII
// characters, as JSON.stringify or Python's ensure_ascii=False write them; API Gateway hands
// such a body to the function as a string holding those characters.
export const BENCH_BODIES: readonly BenchBody[] = [
  {
    name: '1 KB compact ASCII',
    text: phpJsonEncode(eventBooked({ notes: notes(6) })),
    pretty: false,
  },
  {
    name: '1 KB compact UTF-8',
    text: JSON.stringify(eventBooked({ notes: notes(6) })),
    pretty: false,
  },
  {
    name: '64 KB compact ASCII',
    text: phpJsonEncode(eventBooked({ notes: notes(1000) })),
    pretty: false,
  },
  {
    name: '64 KB compact UTF-8',
    text: JSON.stringify(eventBooked({ notes: notes(1085) })),
    pretty: false,
  },
  {
    name: '1 KB pretty ASCII',
    text: phpPrettyJson(eventBooked({ notes: notes(4) })),
    pretty: true,
  },
  {
    name: '64 KB pretty ASCII',
    text: phpPrettyJson(eventBooked({ notes: notes(900) })),
    pretty: true,
  },
  {
    name: '64 KB compact ASCII, base64',
    text: phpJsonEncode(eventBooked({ notes: notes(1000) })),
    pretty: false,
    bytes: true,
  },
  {
    name: '64 KB compact UTF-8, base64',
    text: JSON.stringify(eventBooked({ notes: notes(1085) })),
    pretty: false,
    bytes: true,
  },
  {
    name: '64 KB pretty UTF-8',
    text: JSON.stringify(eventBooked({ notes: notes(900) }), null, 4),
    pretty: true,
  },
];

/**
 * The floor every ratio of the bench is taken against: one bare
 * `createHmac('sha256', key).update(signedText).digest()` over the signed text
 * `<t>.<squashed body>`, already built, as a string (so it includes encoding it to UTF-8, as any
 * verifier of a string body must).
 *
 * @param body - the body as sent
 * @param timestamp - the `t` it is signed with
 */
export function bareHmac(body: string, timestamp: number): () => Buffer {
  const squashed = squashJson(body);
  if (!squashed.ok) throw new Error('bench body is not JSON');
  const signedText = `${timestamp}.${squashed.text}`;
  return () => createHmac('sha256', KEY).update(signedText).digest();
}

const stripe = new Stripe('sk_test_bench_only');

/**
 * Median cost of one `verifySignature` call on the body as the handler gets it (a string), and of
 * stripe's `constructEvent` on the same string, against the floor measured in the same run.
 */
export const verifySection: BenchSection = {
  name: 'verify',
  run(): BenchTable {
    // Stripe checks the timestamp against the real clock, so both are signed now.
    const now = Math.floor(Date.now() / 1000);
    const rows = BENCH_BODIES.map(({ name, text, pretty, bytes }) => {
      const body = bytes ? Buffer.from(text) : text;
      const input = { header: signPayload(text, KEY, now), body, keys: [KEY], now };
      if (!verifySignature(input).ok) throw new Error(`bench body "${name}" does not verify`);
      const stripeHeader = stripe.webhooks.generateTestHeaderString({
        payload: text,
        secret: KEY,
        timestamp: now,
      });
      stripe.webhooks.constructEvent(body, stripeHeader, KEY);
      const { medianNanoseconds, medianRatioToFirst } = compareOperations([
        bareHmac(text, now),
        () => verifySignature(input),
        () => stripe.webhooks.constructEvent(body, stripeHeader, KEY),
        () => squashJson(text),
      ]);
      const [floorNs = Number.NaN, verifyNs = Number.NaN, stripeNs = Number.NaN] =
        medianNanoseconds;
      const [, verifyRatio = Number.NaN, stripeRatio = Number.NaN, squashRatio = Number.NaN] =
        medianRatioToFirst;
      return [
        name,
        String(Buffer.byteLength(text)),
        verifyNs.toFixed(0),
        floorNs.toFixed(0),
        stripeNs.toFixed(0),
        verifyRatio.toFixed(2),
        pretty ? '2.5' : '1.5',
        (verifyRatio / stripeRatio).toFixed(2),
        squashRatio.toFixed(2),
      ];
    });
    return {
      title:
        'verifySignature vs bare HMAC-SHA-256 and stripe constructEvent (body as a string, one key)',
      columns: [
        'body',
        'bytes',
        'verify ns',
        'bare HMAC ns',
        'stripe ns',
        'ratio to HMAC',
        'target',
        'ratio to stripe',
        'squashJson alone, ratio to HMAC',
      ],
      rows,
      notes: [
        "The body is a string, as API Gateway and function URLs hand it to the handler; verifySignature squashes it, checks it is JSON and hashes it without a round trip through bytes; a body the squashing found all ASCII (PHP json_encode's default) is hashed as Latin-1, skipping the UTF-8 encoding pass the floor pays. The base64 rows give it as the bytes decoded once from a base64 body (binary media types): those bytes are hashed as they are when squashing removed nothing, and ASCII is decoded as latin1.",
        'The bare HMAC runs over the signed text `<t>.<squashed body>`, already built, as a string: createHmac encodes it to UTF-8, which any verifier of a string body pays too.',
        'stripe: `stripe.webhooks.constructEvent(body, header, secret)` (stripe 23.1.0, a dev dependency of this bench only) on the same string with its own header format: HMAC over the raw body, a hex comparison, then JSON.parse. Target: ratio to stripe below 1.',
        'squashJson alone: the grammar check and whitespace removal of the string body, without hashing, as a ratio to the same floor. Where the hash cannot skip the UTF-8 encoding (the UTF-8 rows), verify costs at least the floor plus this: a compact UTF-8 row can only meet 1.5 when this is under 0.5, and its check is one native regular-expression match over the text.',
        'ns = median per call; ratios = median over 101 interleaved batches of the batch time over the bare HMAC batch run just before it, so load from other processes cancels out; ratio to stripe = the two ratios to HMAC divided.',
      ],
    };
  },
};
