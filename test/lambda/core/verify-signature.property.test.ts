import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../../lambda/core/index.js';
import { unreadableHeaderReason } from '../../../lambda/core/verify-signature.js';
import { signRawBody } from '../../support/booking.js';
import { propertyRuns } from '../../support/property-runs.js';
import { jsonDocument, renderWithWhitespace } from './json-arbitraries.js';

const ROUND_TRIP_RUNS = propertyRuns('verify(sign(x)) under any whitespace', 300);
const BYTE_CHANGE_RUNS = propertyRuns('a changed byte inside a string fails', 500);
const OTHER_KEY_RUNS = propertyRuns('another key fails', 200);
const BYTES_RUNS = propertyRuns('bytes verify as the text they decode to', 300);
const PREFIX_RUNS = propertyRuns('raw non-ASCII after an ASCII prefix of any length', 300);
const UNREADABLE_RUNS = propertyRuns('an unreadable header is judged as verify judges it', 1000);

const T = 1_716_000_000;
const key = fc.string({ minLength: 1, maxLength: 40 });
// Strings with any code point, written raw (as Python's ensure_ascii=False or JSON.stringify do).
const unicodeValue = fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' });
// Bytes that are not ASCII, placed inside a string: valid UTF-8 sequences or not.
const highBytes = fc.uint8Array({ min: 0x80, max: 0xff, maxLength: 4 });

describe('Function: verifySignature (properties)', () => {
  it(
    'verifies a body given as bytes exactly as the text they decode to, whatever the bytes',
    () => {
      fc.assert(
        fc.property(jsonDocument, unicodeValue, highBytes, (document, value, raw) => {
          // Prepare
          const rendered = renderWithWhitespace(value, document.gaps, document.escapeSlashes);
          const body = Buffer.concat([
            Buffer.from('{"note":"'),
            raw,
            Buffer.from(`","value":${rendered}}`),
          ]);
          const text = body.toString('utf8');
          const header = signPayload(text, 'k', T);

          // Act
          const fromBytes = verifySignature({ header, body, keys: ['k'], now: T });
          const fromText = verifySignature({ header, body: text, keys: ['k'], now: T });

          // Assess
          expect(fromBytes).toMatchObject({ ok: true, form: 'as_sent' });
          expect(fromBytes).toEqual(fromText);
        }),
        { numRuns: BYTES_RUNS.numRuns, seed: BYTES_RUNS.seed },
      );
    },
    BYTES_RUNS.timeout,
  );

  // The verifier hashes a text it found to be ASCII without encoding it to UTF-8, and looks for a
  // non-ASCII character in the first characters before trying its ASCII-only compact check.
  it(
    'verifies a string body with raw non-ASCII text after an ASCII prefix of any length',
    () => {
      fc.assert(
        fc.property(
          fc.nat({ max: 700 }),
          unicodeValue,
          jsonDocument,
          (padding, value, { gaps, escapeSlashes }) => {
            // Prepare: signed over the UTF-8 bytes of the compact text, as the sender does.
            const document = { pad: 'a'.repeat(padding), value };
            const header = signRawBody(Buffer.from(JSON.stringify(document)), 'k', T);
            const compact = JSON.stringify(document);
            const pretty = renderWithWhitespace(document, gaps, escapeSlashes);

            // Act
            const results = [compact, pretty].map((body) =>
              verifySignature({ header, body, keys: ['k'], now: T }),
            );

            // Assess
            for (const result of results) expect(result).toMatchObject({ ok: true, keyIndex: 0 });
          },
        ),
        { numRuns: PREFIX_RUNS.numRuns, seed: PREFIX_RUNS.seed },
      );
    },
    PREFIX_RUNS.timeout,
  );

  it(
    'accepts a body signed over its compact form, whatever whitespace it is sent with',
    () => {
      fc.assert(
        fc.property(jsonDocument, key, ({ value, gaps, escapeSlashes }, secret) => {
          // Prepare
          const header = signPayload(JSON.stringify(value), secret, T);
          const body = renderWithWhitespace(value, gaps, escapeSlashes);

          // Act
          const result = verifySignature({ header, body, keys: [secret], now: T });

          // Assess
          expect(result).toMatchObject({ ok: true, keyIndex: 0 });
        }),
        { numRuns: ROUND_TRIP_RUNS.numRuns, seed: ROUND_TRIP_RUNS.seed },
      );
    },
    ROUND_TRIP_RUNS.timeout,
  );

  it(
    'rejects the body when any single byte inside a string value or key changes',
    () => {
      fc.assert(
        fc.property(
          fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
          fc.string({ minLength: 1 }),
          fc.string({ minLength: 1 }),
          fc.boolean(),
          fc.nat(),
          fc.integer({ min: 1, max: 255 }),
          (rest, targetKey, targetValue, inKey, at, flip) => {
            // Prepare: the target member comes first, so its string's bytes are easy to find.
            const member = `${JSON.stringify(targetKey)}:${JSON.stringify(targetValue)}`;
            const restText = JSON.stringify(rest).slice(1);
            const body = Buffer.from(`{${member}${restText === '}' ? '' : ','}${restText}`);
            const header = signPayload(body, 'k', T);
            const string = inKey ? JSON.stringify(targetKey) : JSON.stringify(targetValue);
            const stringStart = 1 + (inKey ? 0 : Buffer.byteLength(JSON.stringify(targetKey)) + 1);
            const contentBytes = Buffer.byteLength(string) - 2;
            const position = stringStart + 1 + (at % contentBytes);
            const changed = Buffer.from(body);
            changed[position] = (changed[position] ?? 0) ^ flip;

            // Act
            const result = verifySignature({ header, body: changed, keys: ['k'], now: T });

            // Assess
            expect(result.ok).toBe(false);
          },
        ),
        { numRuns: BYTE_CHANGE_RUNS.numRuns, seed: BYTE_CHANGE_RUNS.seed },
      );
    },
    BYTE_CHANGE_RUNS.timeout,
  );

  it(
    'rejects a call checked with any other key',
    () => {
      fc.assert(
        fc.property(fc.jsonValue(), key, key, (value, secret, other) => {
          // Prepare
          fc.pre(secret !== other);
          const body = JSON.stringify(value);
          const header = signPayload(body, secret, T);

          // Act
          const result = verifySignature({ header, body, keys: [other], now: T });

          // Assess
          expect(result).toEqual({ ok: false, reason: 'signature_mismatch', timestamp: T });
        }),
        { numRuns: OTHER_KEY_RUNS.numRuns, seed: OTHER_KEY_RUNS.seed },
      );
    },
    OTHER_KEY_RUNS.timeout,
  );

  it(
    'calls a header unreadable exactly when verifySignature rejects it as missing or malformed',
    () => {
      // Pieces a header is made of, so generated values often come close to a valid one.
      const piece = fc.oneof(
        fc.constantFrom('t=', 'signature=', ',', ' ', '=', `${T}`, 'x'),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        fc.string({ maxLength: 6 }),
      );
      const value = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
      const header = fc.oneof(fc.constant(undefined), value, fc.array(value, { maxLength: 3 }));
      fc.assert(
        fc.property(header, (sent) => {
          // Act
          const unreadable = unreadableHeaderReason(sent);
          const verified = verifySignature({ header: sent, body: '{}', keys: ['k'], now: T });

          // Assess
          const headerReason =
            !verified.ok &&
            (verified.reason === 'missing_header' || verified.reason === 'malformed_header')
              ? verified.reason
              : undefined;
          expect(unreadable).toBe(headerReason);
        }),
        { numRuns: UNREADABLE_RUNS.numRuns, seed: UNREADABLE_RUNS.seed },
      );
    },
    UNREADABLE_RUNS.timeout,
  );
});
