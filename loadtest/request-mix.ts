import { buildBookingPayload, phpJsonEncode } from '../devkit/booking-payload.js';
import { signPayload } from '../lambda/core/sign.js';
import { SIGNATURE_HEADER_KEY } from '../lambda/core/signature-header.js';

/** What a load-test request exercises; each kind has one answer in the receiver's contract. */
export type RequestKind = 'valid' | 'replayed' | 'forged' | 'stale' | 'oversized' | 'ignored';

/** One request to send: its kind (for accounting), exact body bytes and headers. */
export interface WebhookRequest {
  readonly kind: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A bounded sequence of requests, built one at a time; signatures take the time of the build,
 * which is the send time unless the runner builds ahead (see `RunLoadOptions.buildAhead`).
 */
export interface RequestSource {
  readonly count: number;
  /** Builds request `index`; called once per index, in increasing order. */
  build(index: number): WebhookRequest;
}

/**
 * Share of each kind in the default mix, in percent: mostly genuine bookings, with every kind of
 * call the contract refuses, and replays of genuine calls (a sender's retry or an attacker's copy).
 */
export const DEFAULT_MIX: Readonly<Record<RequestKind, number>> = {
  valid: 50,
  replayed: 10,
  forged: 15,
  stale: 10,
  oversized: 5,
  ignored: 10,
};

/** Options of {@link requestMix}. */
export interface RequestMixOptions {
  /** How many requests. */
  readonly count: number;
  /** The receiver's signing key. */
  readonly key: string;
  /** Marks every body of this run (its `source` field), telling its messages from other traffic. */
  readonly runId: string;
  /** Seed of the mix's order and of the generated bookings: the same seed gives the same run. */
  readonly seed: number;
  /** The receiver's `SIGNATURE_TOLERANCE_SECONDS`: stale calls are signed 60 s before that. */
  readonly toleranceSeconds: number;
  /** The receiver's `MAX_BODY_BYTES`: oversized calls are 1 KiB larger. */
  readonly maxBodyBytes: number;
  /** Clock for signatures, Unix seconds. */
  readonly now: () => number;
}

/**
 * The default load: {@link DEFAULT_MIX} in exact proportions, shuffled by `seed`. Every body is a
 * distinct, realistic booking (PHP `json_encode` style) except replays, which resend an earlier
 * genuine call byte for byte, header included.
 *
 * @param options - size, key, seed, the receiver's limits and the clock
 */
export function requestMix(options: RequestMixOptions): RequestSource & { kinds: RequestKind[] } {
  const random = seededRandom(options.seed);
  const kinds = shuffledKinds(options.count, random);
  const replayOf = replayTargets(kinds, random);
  const sent = new Map<number, WebhookRequest>();
  const booking = (index: number, event?: string): string =>
    runBookingBody({ runId: options.runId, index, random, now: options.now(), event });
  const signed = (kind: RequestKind, body: string, signature: string): WebhookRequest => ({
    kind,
    body: Buffer.from(body),
    headers: webhookHeaders(signature),
  });

  const builders: Record<RequestKind, (index: number) => WebhookRequest> = {
    valid: (index) => {
      const body = booking(index);
      return signed('valid', body, signPayload(body, options.key, options.now()));
    },
    replayed: (index) => {
      const original = sent.get(replayOf.get(index) ?? -1);
      if (original === undefined) throw new Error(`replay ${index} has no earlier genuine call`);
      return { ...original, kind: 'replayed' };
    },
    forged: (index) => {
      const body = booking(index);
      // Half signed with a key the receiver does not have, half tampered after signing.
      if (index % 2 === 0) {
        return signed('forged', body, signPayload(body, `forged-${options.key}`, options.now()));
      }
      const tampered = body.replace(/"cost":"([^"]*)"/, '"cost":"\\u20ac0.01"');
      return signed('forged', tampered, signPayload(body, options.key, options.now()));
    },
    stale: (index) => {
      const body = booking(index);
      const then = options.now() - options.toleranceSeconds - 60;
      return signed('stale', body, signPayload(body, options.key, then));
    },
    oversized: (index) => {
      const padding = 'x'.repeat(options.maxBodyBytes + 1024);
      const body = booking(index).replace(/}$/, `,"notes":"${padding}"}`);
      return signed('oversized', body, signPayload(body, options.key, options.now()));
    },
    ignored: (index) => {
      const body = booking(index, 'event_cancelled');
      return signed('ignored', body, signPayload(body, options.key, options.now()));
    },
  };

  return {
    count: options.count,
    kinds,
    build(index) {
      const kind = kinds[index];
      if (kind === undefined) throw new RangeError(`request ${index} is outside the mix`);
      const request = builders[kind](index);
      if (kind === 'valid') sent.set(index, request);
      return request;
    },
  };
}

/** The headers the booking service sends (spec 4.1) but `Content-Length`, which the client sets. */
export function webhookHeaders(signature: string): Record<string, string> {
  return { 'content-type': 'application/json', [SIGNATURE_HEADER_KEY]: signature };
}

/** Options of {@link runBookingBody}. */
export interface RunBookingOptions {
  readonly runId: string;
  /** Position in the run; makes the booking id unique within it. */
  readonly index: number;
  readonly random: () => number;
  /** Booking time, Unix seconds. */
  readonly now: number;
  /** @default 'event_booked' */
  readonly event?: string | undefined;
}

/**
 * A realistic booking body that carries the run's marker in `source` and a booking id unique
 * within the run, so every body sent is distinct and recognisable in the queue.
 *
 * @param options - run, position, randomness, time and event
 */
export function runBookingBody(options: RunBookingOptions): string {
  const payload = JSON.parse(
    buildBookingPayload({
      random: options.random,
      now: new Date(options.now * 1000),
      ...(options.event === undefined ? {} : { event: options.event }),
    }),
  ) as { source: string; data: { id: string } };
  payload.source = runSource(options.runId);
  payload.data.id = String(1_000_000_000 + options.index);
  return phpJsonEncode(payload);
}

/** Whether a queue message body was sent by the run `runId` (see {@link runBookingBody}). */
export function isRunBody(body: string, runId: string): boolean {
  try {
    return (JSON.parse(body) as { source?: unknown }).source === runSource(runId);
  } catch {
    return false;
  }
}

function runSource(runId: string): string {
  return `loadtest-${runId}`;
}

/**
 * A small deterministic generator of numbers in [0, 1) (mulberry32): enough to shuffle a test
 * mix reproducibly, not for anything secret.
 *
 * @param seed - any 32-bit integer
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Exact counts per kind (largest remainder), shuffled; the first request is always genuine. */
function shuffledKinds(count: number, random: () => number): RequestKind[] {
  const entries = Object.entries(DEFAULT_MIX) as [RequestKind, number][];
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  const shares = entries.map(([kind, weight]) => {
    const exact = (count * weight) / total;
    return { kind, whole: Math.floor(exact), remainder: exact - Math.floor(exact) };
  });
  let left = count - shares.reduce((sum, share) => sum + share.whole, 0);
  for (const share of [...shares].sort((a, b) => b.remainder - a.remainder)) {
    if (left === 0) break;
    share.whole += 1;
    left -= 1;
  }
  const kinds = shares.flatMap((share) => Array<RequestKind>(share.whole).fill(share.kind));
  for (let i = kinds.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as RequestKind, kinds[i] as RequestKind];
  }
  // A replay needs an earlier genuine call to copy.
  const firstValid = kinds.indexOf('valid');
  if (firstValid > 0) [kinds[0], kinds[firstValid]] = ['valid', kinds[0] as RequestKind];
  return kinds;
}

/** For each replay, a random earlier genuine call to resend. */
function replayTargets(kinds: readonly RequestKind[], random: () => number): Map<number, number> {
  const targets = new Map<number, number>();
  const valid: number[] = [];
  kinds.forEach((kind, index) => {
    if (kind === 'valid') valid.push(index);
    if (kind === 'replayed') {
      targets.set(index, valid[Math.floor(random() * valid.length)] as number);
    }
  });
  return targets;
}
