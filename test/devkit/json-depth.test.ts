import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../../devkit/json-depth.js';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('Function: nestedDeeperThan', () => {
  it.each([
    ['a string', (text: string) => text],
    ['its UTF-8 bytes', bytes],
  ] as const)(
    'counts the nesting of %s: the limit itself passes, one more level does not',
    (_, as) => {
      expect(nestedDeeperThan(as(nested(3)), 3)).toBe(false);
      expect(nestedDeeperThan(as(nested(4)), 3)).toBe(true);
      expect(nestedDeeperThan(as('{"a":[{"b":[]}]}'), 4)).toBe(false);
      expect(nestedDeeperThan(as('{"a":[{"b":[]}]}'), 3)).toBe(true);
    },
  );

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ note: '[[[[ "{{{{" \\ ]]]]', name: 'Zoë 😀 [' });
    expect(nestedDeeperThan(text, 1)).toBe(false);
    expect(nestedDeeperThan(bytes(text), 1)).toBe(false);
  });

  it('counts what opened in an unbalanced text, and reads 100,000 levels without recursion', () => {
    expect(nestedDeeperThan('[[[', 2)).toBe(true);
    expect(nestedDeeperThan(nested(100_000), 99_999)).toBe(true);
    expect(nestedDeeperThan(nested(100_000), 100_000)).toBe(false);
  });
});
