import { describe, expect, it } from 'vitest';
import { diagnoseSignature, type FailedVerification } from '../../../cli/lib/diagnose-signature.js';
import { verifySignature } from '../../../lambda/core/index.js';
import { type SenderVector, senderVector } from '../../lambda/core/sender-vectors.js';

/** The failure verify saw for `vector` checked with `overrides`, ready to diagnose. */
function failure(
  vector: SenderVector,
  overrides: Partial<FailedVerification> = {},
): FailedVerification {
  const input = {
    header: vector.header,
    body: Buffer.from(vector.body),
    key: { key: vector.key, raw: vector.key, source: 'WEBHOOK_SECRET' },
    now: vector.t,
    ...overrides,
  };
  const result = verifySignature({
    header: input.header,
    body: input.body,
    keys: [input.key.key],
    now: input.now,
  });
  if (result.ok) throw new Error(`${vector.name} verifies: nothing to diagnose`);
  return { ...input, reason: result.reason, timestamp: result.timestamp };
}

const compact = senderVector('php-default-compact');

describe('Function: diagnoseSignature', () => {
  it('names the clock when the signature holds at the time t names', () => {
    // Act
    const hints = diagnoseSignature(failure(compact, { now: compact.t + 3600 }));

    // Assess
    expect(hints).toEqual([
      `the signature is valid at --now ${compact.t}: the call was signed 3600 s (about 60 minutes) before --now, so either a clock (this machine's or the sender's) is off by that much or this is an old call replayed`,
    ]);
  });

  it('says "after" for a call from the future', () => {
    // Act
    const [hint] = diagnoseSignature(failure(compact, { now: compact.t - 400 }));

    // Assess
    expect(hint).toContain('signed 400 s (about 7 minutes) after --now');
  });

  it('reads long spans in days', () => {
    // Act
    const [hint] = diagnoseSignature(failure(compact, { now: compact.t + 3 * 86_400 }));

    // Assess
    expect(hint).toContain('signed 259200 s (about 3 days) before --now');
  });

  it('goes on to the mismatch causes when the clock is not the only problem', () => {
    // Prepare
    const newlineKey = senderVector('php-key-with-trailing-newline');

    // Act
    const hints = diagnoseSignature(failure(newlineKey, { now: newlineKey.t + 1000 }));

    // Assess
    expect(hints[0]).toBe(
      `t is 1000 s (about 17 minutes) before --now, and even at --now ${newlineKey.t} the signature would not match:`,
    );
    expect(hints[1]).toMatch(/^the signature matches the key with trailing "\\n" whitespace/);
  });

  it('names the re-serialization when the body as PHP would write it matches', () => {
    // Prepare: PHP signed its json_encode text; the body arrives as JSON.stringify wrote it.
    const reencoded = JSON.stringify(JSON.parse(compact.body));

    // Act
    const hints = diagnoseSignature(failure(compact, { body: Buffer.from(reencoded) }));

    // Assess
    expect(hints).toEqual([
      expect.stringMatching(
        /^the signature matches the body as re-serialized by PHP's json_encode defaults: the body was altered in transit/,
      ),
    ]);
  });

  it('names the raw key when the sender uses the untrimmed key this tool read', () => {
    // Prepare
    const newlineKey = senderVector('php-key-with-trailing-newline');
    const key = { key: newlineKey.key, raw: `${newlineKey.key}\n`, source: '--secret-file' };

    // Act
    const hints = diagnoseSignature(failure(newlineKey, { key }));

    // Assess
    expect(hints).toEqual([
      expect.stringContaining('while this tool and the receiver trim --secret-file'),
    ]);
  });

  it('names a sender that signs its body before squashing it', () => {
    // Act
    const hints = diagnoseSignature(failure(senderVector('php-signed-pretty-text-unsquashed')));

    // Assess
    expect(hints).toEqual([
      expect.stringMatching(/^the signature matches the body exactly as sent, whitespace included/),
    ]);
  });

  it('falls back to the usual causes when nothing specific matches', () => {
    // Act
    const hints = diagnoseSignature(
      failure(compact, { key: { key: 'other', raw: 'other', source: 'WEBHOOK_SECRET' } }),
    );

    // Assess
    expect(hints).toEqual([
      expect.stringMatching(
        /^no simple cause found: the key \(5 characters, SHA-256 [0-9a-f]{8}…\) is most likely not this endpoint's/,
      ),
    ]);
  });

  it.each([
    [
      'a header pasted with its name',
      `Service-Signature: ${compact.header}`,
      /^pass only the header value/,
    ],
    [
      'a header of another shape',
      'sha256=abc',
      /^the header value must look like t=<Unix seconds>,signature=<64 hex characters>$/,
    ],
    ['an empty header', '', /^the header value must look like/],
  ])('explains %s', (_, header, hint) => {
    // Act
    const hints = diagnoseSignature(failure(compact, { header }));

    // Assess
    expect(hints).toEqual([expect.stringMatching(hint)]);
  });

  it.each([
    [
      'a byte-order mark',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(compact.body)]),
      /byte-order mark/,
    ],
    [
      'a form-encoded body',
      Buffer.from('event=event_booked'),
      /^the body is not a single JSON value: save the raw request body/,
    ],
  ])('explains a body with %s', (_, body, hint) => {
    // Act
    const hints = diagnoseSignature(failure(compact, { body }));

    // Assess
    expect(hints).toEqual([expect.stringMatching(hint)]);
  });
});
