import { describe, expect, it } from 'vitest';
import { escapeSlashes, unescapeSlashes } from '../../../lambda/core/canonical-json.js';
import { verifySignature } from '../../../lambda/core/verify-signature.js';
import { phpVectors, pythonVectors, type SenderVector } from './sender-vectors.js';

// The body of a form-matched call, rewritten the way the verifier rewrote it.
const REWRITES = {
  as_sent: (text: string) => text,
  slashes_escaped: escapeSlashes,
  slashes_unescaped: unescapeSlashes,
};

function verifyVector(vector: SenderVector, body: string | Uint8Array) {
  return verifySignature({ header: vector.header, body, keys: [vector.key], now: vector.t });
}

describe.each([
  ['PHP json_encode + hash_hmac', phpVectors],
  ['Python json.dumps + hmac', pythonVectors],
])('Function: verifySignature, vectors from %s', (_, vectors) => {
  it.each(vectors.filter((vector) => vector.expect.ok))('accepts $name', (vector) => {
    // Prepare
    const { expect: expected } = vector;
    if (!expected.ok) throw new Error('filtered above');

    // Act
    const fromText = verifyVector(vector, vector.body);
    const fromBytes = verifyVector(vector, Buffer.from(vector.body, 'utf8'));

    // Assess
    expect(fromText).toEqual({
      ok: true,
      timestamp: vector.t,
      keyIndex: 0,
      form: expected.form,
      canonicalBody: expect.any(String),
    });
    expect(fromBytes).toEqual(fromText);
    if (!fromText.ok) return;
    expect(REWRITES[fromText.form](fromText.canonicalBody)).toBe(vector.signed);
  });

  it.each(vectors.filter((vector) => !vector.expect.ok))('rejects $name', (vector) => {
    // Act
    const result = verifyVector(vector, vector.body);

    // Assess
    expect(result).toEqual({ ...vector.expect, timestamp: vector.t });
  });
});
