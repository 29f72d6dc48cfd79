import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/percentile.js';

describe('Function: percentile', () => {
  it('returns the middle sample as the median of an odd count, whatever the order', () => {
    // Prepare
    const samples = [9, 1, 5];

    // Act
    const median = percentile(samples, 0.5);

    // Assess
    expect(median).toBe(5);
  });

  it('returns an observed sample, the lower middle one, as the median of an even count', () => {
    // Prepare
    const samples = [4, 1, 3, 2];

    // Act
    const median = percentile(samples, 0.5);

    // Assess
    expect(median).toBe(2);
  });

  it('returns the 99th of 100 ascending samples as p99 and the largest as p100', () => {
    // Prepare
    const samples = Array.from({ length: 100 }, (_, index) => 100 - index);

    // Act
    const [p99, p100] = [percentile(samples, 0.99), percentile(samples, 1)];

    // Assess
    expect([p99, p100]).toEqual([99, 100]);
  });

  it('returns NaN when there are no samples', () => {
    // Act
    const result = percentile([], 0.5);

    // Assess
    expect(result).toBeNaN();
  });

  it('rejects a fraction outside (0, 1]', () => {
    // Act
    const calls = [0, 1.5, Number.NaN].map((fraction) => () => percentile([1], fraction));

    // Assess
    for (const call of calls) expect(call).toThrow(RangeError);
  });
});
