/**
 * The receiver's settings, one row each: the construct prop (also the CDK context key), the
 * environment variable the Lambda reads at cold start (and `npm start` reads from its own
 * environment), the default, the allowed range and one line of documentation. The context reader,
 * the construct's checks, the environment it writes, the Lambda's configuration and the
 * configuration reference (`docs/configuration-reference.md`) all read this table, so a value is
 * refused everywhere with the same range and the same message.
 * @module
 */
import { DEFAULT_TOLERANCE_SECONDS } from '../core/verify-signature.js';

/** A setting that is a whole number of seconds or bytes within a range. */
export interface WholeNumberSetting {
  readonly kind: 'whole-number';
  /** The construct prop, which is also the CDK context key. */
  readonly prop: string;
  /** The environment variable of the receiver function (and of `npm start`). */
  readonly variable: string;
  readonly default: number;
  readonly minimum: number;
  /** The largest value, when there is one. */
  readonly maximum?: number;
  readonly unit: 'seconds' | 'bytes';
  /** One line for the configuration reference. */
  readonly summary: string;
}

/**
 * Largest body the receiver accepts. SQS takes at most 1 MiB (1,048,576 bytes) per message,
 * counting the body and every attribute's name, type and value. The body goes to the queue
 * unchanged, with attributes that copy the payload's `event`, `event_at` and `source` (so together
 * never longer than the body) plus `signature_timestamp`, `dedup_key` and `endpoint` (under 200
 * bytes with all names and types: 35 + 112 + 46 at most). A body of at most 512,000 bytes always
 * fits, however a signed payload spreads its text over those fields; above that a large signed
 * call could fail SendMessage on every retry, a 503 the sender can never get past.
 */
export const MAX_BODY_BYTES_LIMIT = 512_000;

/** The receiver's whole-number settings, by prop. */
export const RECEIVER_SETTINGS = {
  signatureToleranceSeconds: {
    kind: 'whole-number',
    prop: 'signatureToleranceSeconds',
    variable: 'SIGNATURE_TOLERANCE_SECONDS',
    default: DEFAULT_TOLERANCE_SECONDS,
    minimum: 1,
    // A wider window widens the window in which a captured call can be replayed.
    maximum: 3600,
    unit: 'seconds',
    summary:
      "How far a call's signature timestamp `t` may be from the receiver's clock, either way.",
  },
  previousKeyGraceSeconds: {
    kind: 'whole-number',
    prop: 'previousKeyGraceSeconds',
    variable: 'PREVIOUS_KEY_GRACE_SECONDS',
    default: 86_400,
    minimum: 0,
    unit: 'seconds',
    summary:
      'How long after a rotation the previous key (`AWSPREVIOUS`) still verifies calls signed before the switch.',
  },
  secretCacheSeconds: {
    kind: 'whole-number',
    prop: 'secretCacheSeconds',
    variable: 'SECRET_CACHE_SECONDS',
    // An hour: a rotation does not wait for it (a call no cached key verifies reloads the keys, at
    // most every 30 s), and two warm environments then cost about $0.01 of Secrets Manager a
    // month instead of $0.17 at 300 s (`npm run bench -- cost`, 2 calls per load).
    default: 3600,
    minimum: 0,
    unit: 'seconds',
    summary:
      'How long a warm receiver keeps the keys it loaded before asking Secrets Manager again; a call no key verifies reloads them sooner (at most every 30 s), so a rotation does not wait for it. An hour keeps Secrets Manager at cents a month.',
  },
  maxBodyBytes: {
    kind: 'whole-number',
    prop: 'maxBodyBytes',
    variable: 'MAX_BODY_BYTES',
    default: 262_144,
    minimum: 1,
    maximum: MAX_BODY_BYTES_LIMIT,
    unit: 'bytes',
    summary:
      'The largest body accepted; a larger one is answered 413 before its signature is checked.',
  },
} as const satisfies Record<string, WholeNumberSetting>;

/** The props of the receiver's whole-number settings. */
export type WholeNumberSettingProp = keyof typeof RECEIVER_SETTINGS;

/** A setting's value once checked, or the one message every reader of the setting gives. */
export type SettingCheck =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly message: string };

/**
 * Checks a whole-number setting, given as a number (a prop, a context value from `cdk.json`) or as
 * text (an environment variable, `-c key=value`). The message names the prop and the variable and
 * states the range, so the construct, the Lambda's cold start and `npm start` refuse a value in
 * the same words.
 *
 * @param setting - the setting's row
 * @param given - the value as given
 */
export function checkWholeNumber(
  setting: WholeNumberSetting,
  given: number | string,
): SettingCheck {
  const text = String(given).trim();
  const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  const { minimum, maximum } = setting;
  if (value >= minimum && (maximum === undefined || value <= maximum)) return { ok: true, value };
  const range = maximum === undefined ? `of at least ${minimum}` : `from ${minimum} to ${maximum}`;
  return {
    ok: false,
    message: `${setting.prop} (${setting.variable}) must be a whole number ${range}, got ${String(given)}`,
  };
}

/**
 * The receiver function's timeout, in seconds. A warm call takes milliseconds; the receiver gives
 * a key load and a send 5 s each before it answers 503 with Retry-After, and 15 s lets those
 * deadlines end first (a Lambda timeout would reach the sender as an unexplained 502) and still
 * ends before API Gateway's 29 s limit. It is also the longest a call's archive write can come
 * after its receipt time, which the replay allows for when it lists a window.
 */
export const RECEIVER_TIMEOUT_SECONDS = 15;
