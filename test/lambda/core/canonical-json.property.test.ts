import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { squashJson } from '../../../lambda/core/canonical-json.js';
import { propertyRuns } from '../../support/property-runs.js';
import { jsonDocument, renderWithWhitespace } from './json-arbitraries.js';

const SQUASH_RUNS = propertyRuns('squashJson removes only whitespace between tokens', 500);
const GRAMMAR_RUNS = propertyRuns('squashJson accepts exactly what JSON.parse accepts', 3000);

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Near-JSON texts: a valid text with one character inserted, removed or replaced, from an
// alphabet of the characters JSON grammar cares about.
const nearJson = fc
  .tuple(
    fc.json({ maxDepth: 3 }),
    fc.nat(),
    fc.constantFrom('insert', 'remove', 'replace'),
    fc.constantFrom(...'{}[],:"\\/ \t\n\r0123456789.eE+-tfnrulsabu\u0001\u00a0\ufeff'),
  )
  .map(([text, at, edit, character]) => {
    const position = at % (text.length + 1);
    const before = text.slice(0, position);
    if (edit === 'insert') return before + character + text.slice(position);
    if (edit === 'remove') return before + text.slice(position + 1);
    return before + character + text.slice(position + 1);
  });

describe('Function: squashJson (properties)', () => {
  it(
    'turns any JSON value written with any whitespace into its compact form',
    () => {
      fc.assert(
        fc.property(jsonDocument, ({ value, gaps, escapeSlashes: escaped }) => {
          // Prepare
          const compact = JSON.stringify(value);
          const text = renderWithWhitespace(value, gaps, escaped);

          // Act
          const result = squashJson(text);

          // Assess
          const squashed = escaped ? compact.replaceAll('/', '\\/') : compact;
          expect(result).toEqual({
            ok: true,
            text: squashed,
            ascii: !/[\u0080-\uffff]/.test(squashed),
          });
        }),
        { numRuns: SQUASH_RUNS.numRuns, seed: SQUASH_RUNS.seed },
      );
    },
    SQUASH_RUNS.timeout,
  );

  it(
    'accepts exactly the texts JSON.parse accepts',
    () => {
      fc.assert(
        fc.property(fc.oneof(nearJson, fc.json(), fc.string({ maxLength: 12 })), (text) => {
          // Act
          const result = squashJson(text);

          // Assess
          expect(result.ok).toBe(parses(text));
        }),
        { numRuns: GRAMMAR_RUNS.numRuns, seed: GRAMMAR_RUNS.seed },
      );
    },
    GRAMMAR_RUNS.timeout,
  );
});
