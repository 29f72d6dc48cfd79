import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader } from '../../../lambda/core/index.js';

// Pieces a header is made of, so that generated values often come close to a valid header.
const piece = fc.oneof(
  fc.constantFrom('t', 'signature', '=', ',', ' ', 't=', 'signature=', '0', '9'),
  fc.stringMatching(/^[0-9a-fA-F]{64}$/),
  fc.stringMatching(/^[0-9]{1,12}$/),
  fc.string({ unit: 'binary', maxLength: 8 }),
);

describe('Function: parseSignatureHeader (properties)', () => {
  it('never throws and only returns headers with a decimal t and 32-byte signatures', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 1100 }),
          fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
        ),
        (value) => {
          // Act
          const result = parseSignatureHeader(value);

          // Assess
          if (!result.ok) {
            expect(result.reason).toBe('malformed_header');
            return;
          }
          expect(result.header.timestampText).toMatch(/^[0-9]+$/);
          expect(result.header.timestamp).toBe(Number(result.header.timestampText));
          expect(result.header.signatures.length).toBeGreaterThan(0);
          for (const signature of result.header.signatures) expect(signature).toHaveLength(32);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads any valid header whatever the component order and spacing', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,12}$/),
        fc.stringMatching(/^[0-9a-fA-F]{64}$/),
        fc.boolean(),
        fc.constantFrom('', ' ', '  '),
        (t, hex, reversed, space) => {
          // Prepare
          const parts = [`t=${t}`, `signature=${hex}`];
          const value = (reversed ? parts.reverse() : parts).join(`${space},${space}`);

          // Act
          const result = parseSignatureHeader(value);

          // Assess
          expect(result).toEqual({
            ok: true,
            header: {
              timestamp: Number(t),
              timestampText: t,
              signatures: [Buffer.from(hex, 'hex')],
            },
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
