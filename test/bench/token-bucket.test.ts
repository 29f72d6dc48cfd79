import { describe, expect, it } from 'vitest';
import { fullBucket, type TokenBucketLimits, takeToken } from '../../bench/token-bucket.js';

const TEN_A_SECOND_BURST_20: TokenBucketLimits = { ratePerSecond: 10, burst: 20 };

/** Offers one call at each moment, in order; returns how many passed. */
function passed(limits: TokenBucketLimits, moments: readonly number[]): number {
  let bucket = fullBucket(limits);
  let taken = 0;
  for (const at of moments) {
    const take = takeToken(bucket, limits, at);
    bucket = take.bucket;
    if (take.taken) taken++;
  }
  return taken;
}

describe('Function: takeToken', () => {
  it('passes 29 of 100 calls spread over one second through a throttle of 10/s with a burst of 20', () => {
    // Prepare: calls at k/100 s, k = 0..99. The bucket starts full (20) and gains 0.1 token
    // between calls. Before call k it holds 20 + 0.1k minus the calls passed so far. While every
    // call passes (k + 1 of them), call k needs 20 + 0.1k - k >= 1, i.e. k <= 21.1: calls 0 to
    // 21 pass (22), and call 22 finds 0.2. After that one call passes each time the refill makes
    // a whole token: 20 + 0.1k - 22 >= 1 at k = 30, then 40, 50, 60, 70, 80, 90 (7 more).
    // 22 + 7 = 29 pass: the burst plus one call per 0.1 s of the 0.99 s, whole tokens only.
    const moments = Array.from({ length: 100 }, (_, k) => k / 100);

    // Act
    const taken = passed(TEN_A_SECOND_BURST_20, moments);

    // Assess
    expect(taken).toBe(29);
  });

  it('passes exactly the burst of 100 calls arriving at the same instant', () => {
    expect(passed(TEN_A_SECOND_BURST_20, Array(100).fill(0))).toBe(20);
  });

  it('refills at the rate and never above the burst', () => {
    // Prepare: empty the bucket at t = 0, then wait 10 s (100 tokens' worth) and offer 30 calls.
    const moments = [...Array(20).fill(0), ...Array(30).fill(10)];

    // Act and Assess: 20 at once, then only the burst again, not 100
    expect(passed(TEN_A_SECOND_BURST_20, moments)).toBe(40);
  });

  it('counts a token made whole by many small refills, despite rounding', () => {
    // Prepare: 3 tokens a second, one held at most, a call every 1/9 s: each call finds a third
    // of a token more, so calls 0, 3, 6, 9, 12 and 15 pass in exact arithmetic. In floating point
    // three thirds can sum to just under 1.
    const moments = Array.from({ length: 18 }, (_, k) => k / 9);

    // Act and Assess
    expect(passed({ ratePerSecond: 3, burst: 1 }, moments)).toBe(6);
  });

  it('turns a call away when less than a whole token is left, and keeps the fraction', () => {
    // Prepare
    const limits: TokenBucketLimits = { ratePerSecond: 1, burst: 1 };
    const first = takeToken(fullBucket(limits), limits, 0);

    // Act
    const early = takeToken(first.bucket, limits, 0.5);
    const onTime = takeToken(early.bucket, limits, 1);

    // Assess
    expect([first.taken, early.taken, onTime.taken]).toEqual([true, false, true]);
    expect(early.bucket.tokens).toBeCloseTo(0.5);
  });
});
