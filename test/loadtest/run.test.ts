import { describe, expect, it } from 'vitest';
import { mayBuildAhead } from '../../loadtest/hostile-mix.js';

describe('Function: mayBuildAhead', () => {
  it.each([
    [120, 300, true],
    [240, 300, true],
    [241, 300, false],
    [120, 60, false],
    [1, 60, false],
  ])('with a %i s time limit and a %i s tolerance: %s', (timeLimit, tolerance, expected) => {
    // Act and assess: a signature made ahead must stay within the tolerance for the whole run.
    expect(mayBuildAhead(timeLimit, tolerance)).toBe(expected);
  });
});
