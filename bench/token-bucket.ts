/**
 * The token bucket API Gateway throttles with (and the capacity model uses for Lambda's scaling
 * and request-rate limits): tokens flow in continuously at `ratePerSecond`, the bucket holds at
 * most `burst`, and a call passes only by taking a whole token.
 */
export interface TokenBucketLimits {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** The tokens a bucket held at a moment. */
export interface TokenBucket {
  readonly tokens: number;
  readonly atSeconds: number;
}

/** What a call found at the bucket, and the bucket it left. */
export interface TokenBucketTake {
  readonly taken: boolean;
  readonly bucket: TokenBucket;
}

/**
 * Tokens are sums of many small refills, so a token that is whole in exact arithmetic may fall
 * short of 1 by a rounding error; it counts as whole.
 */
const ROUNDING = 1e-9;

/** A bucket holding its whole burst at `atSeconds`, as an idle stage's does. */
export function fullBucket(limits: TokenBucketLimits, atSeconds = 0): TokenBucket {
  return { tokens: limits.burst, atSeconds };
}

/**
 * A call at `atSeconds` (not before the bucket's own moment): the bucket is refilled for the time
 * since, capped at the burst, and the call takes one token if there is a whole one.
 *
 * @returns whether the call passed, and the bucket after it
 */
export function takeToken(
  bucket: TokenBucket,
  limits: TokenBucketLimits,
  atSeconds: number,
): TokenBucketTake {
  const elapsed = Math.max(0, atSeconds - bucket.atSeconds);
  const tokens = Math.min(limits.burst, bucket.tokens + elapsed * limits.ratePerSecond);
  if (tokens >= 1 - ROUNDING) {
    return { taken: true, bucket: { tokens: Math.max(0, tokens - 1), atSeconds } };
  }
  return { taken: false, bucket: { tokens, atSeconds } };
}
