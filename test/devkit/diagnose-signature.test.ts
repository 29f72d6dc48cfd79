import { describe, expect, it } from 'vitest';
import {
  diagnoseSignature,
  type FailedVerification,
  MAX_DIAGNOSED_BODY_BYTES,
  MAX_DIAGNOSED_DEPTH,
} from '../../devkit/diagnose-signature.js';
import { signPayload, verifySignature } from '../../lambda/core/index.js';
import { type SenderVector, senderVector } from '../lambda/core/sender-vectors.js';

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

/** The hints for a failure the diagnosis reads (it fails the test when it declines). */
function hintsOf(input: FailedVerification): readonly string[] {
  const diagnosis = diagnoseSignature(input);
  if (!diagnosis.ok) throw new Error(`no diagnosis: ${diagnosis.why}`);
  return diagnosis.hints;
}

const compact = senderVector('php-default-compact');

describe('Function: diagnoseSignature', () => {
  it('names the clock when the signature holds at the time t names', () => {
    // Act
    const hints = hintsOf(failure(compact, { now: compact.t + 3600 }));

    // Assess
    expect(hints).toEqual([
      `the signature is valid at --now ${compact.t}: the call was signed 3600 s (about 60 minutes) before --now, so either a clock (this machine's or the sender's) is off by that much or this is an old call replayed`,
    ]);
  });

  it('says "after" for a call from the future', () => {
    // Act
    const [hint] = hintsOf(failure(compact, { now: compact.t - 400 }));

    // Assess
    expect(hint).toContain('signed 400 s (about 7 minutes) after --now');
  });

  it('reads long spans in days', () => {
    // Act
    const [hint] = hintsOf(failure(compact, { now: compact.t + 3 * 86_400 }));

    // Assess
    expect(hint).toContain('signed 259200 s (about 3 days) before --now');
  });

  it('goes on to the mismatch causes when the clock is not the only problem', () => {
    // Prepare
    const newlineKey = senderVector('php-key-with-trailing-newline');

    // Act
    const hints = hintsOf(failure(newlineKey, { now: newlineKey.t + 1000 }));

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
    const hints = hintsOf(failure(compact, { body: Buffer.from(reencoded) }));

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
    const hints = hintsOf(failure(newlineKey, { key }));

    // Assess
    expect(hints).toEqual([
      expect.stringContaining('while this tool and the receiver trim --secret-file'),
    ]);
  });

  it('names a sender that signs its body before squashing it', () => {
    // Act
    const hints = hintsOf(failure(senderVector('php-signed-pretty-text-unsquashed')));

    // Assess
    expect(hints).toEqual([
      expect.stringMatching(/^the signature matches the body exactly as sent, whitespace included/),
    ]);
  });

  it('falls back to the usual causes when nothing specific matches', () => {
    // Act
    const hints = hintsOf(
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
    const hints = hintsOf(failure(compact, { header }));

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
    const hints = hintsOf(failure(compact, { body }));

    // Assess
    expect(hints).toEqual([expect.stringMatching(hint)]);
  });

  // Issue 20, findings 4 and 7: JSON.stringify recursed once per level and threw a RangeError.
  it.for([
    ['arrays 50,000 deep (100 KB)', `${'['.repeat(50_000)}${']'.repeat(50_000)}`],
    ['objects 20,000 deep (120 KB)', `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`],
  ] as const)(
    'declines a body of %s and says why, for a mismatch and a stale t alike',
    ([, text]) => {
      // Prepare
      const now = compact.t;
      const body = Buffer.from(text);
      const header = signPayload(text, 'not-the-endpoint-key', now - 3_600);
      const key = { key: compact.key, raw: compact.key, source: 'WEBHOOK_SECRET' };
      const stale = verifySignature({ header, body, keys: [compact.key], now });
      const forged = verifySignature({ header, body, keys: [compact.key], now: now - 3_600 });

      // Act
      const diagnoses = [stale, forged].map((result) =>
        diagnoseSignature({
          header,
          body,
          key,
          now,
          reason: result.ok ? 'signature_mismatch' : result.reason,
          timestamp: now - 3_600,
        }),
      );

      // Assess
      expect([stale.ok || stale.reason, forged.ok || forged.reason]).toEqual([
        'timestamp_too_old',
        'signature_mismatch',
      ]);
      expect(diagnoses).toEqual([
        { ok: false, why: `body nested deeper than ${MAX_DIAGNOSED_DEPTH} levels` },
        { ok: false, why: `body nested deeper than ${MAX_DIAGNOSED_DEPTH} levels` },
      ]);
    },
  );

  it('reads a body nested exactly as deep as it allows', () => {
    // Prepare: the key is right, the body was re-serialized by JSON.stringify on the way.
    const deep = `${'['.repeat(MAX_DIAGNOSED_DEPTH)}"é"${']'.repeat(MAX_DIAGNOSED_DEPTH)}`;
    const signed = `${'['.repeat(MAX_DIAGNOSED_DEPTH)}"\\u00e9"${']'.repeat(MAX_DIAGNOSED_DEPTH)}`;
    const header = signPayload(signed, compact.key, compact.t);

    // Act
    const hints = hintsOf({
      header,
      body: Buffer.from(deep),
      key: { key: compact.key, raw: compact.key, source: 'WEBHOOK_SECRET' },
      now: compact.t,
      reason: 'signature_mismatch',
      timestamp: compact.t,
    });

    // Assess
    expect(hints).toEqual([expect.stringContaining("re-serialized by PHP's json_encode defaults")]);
  });

  it('declines a body larger than the receiver can ever accept', () => {
    // Prepare
    const text = JSON.stringify({ padding: 'x'.repeat(MAX_DIAGNOSED_BODY_BYTES) });

    // Act
    const diagnosis = diagnoseSignature(
      failure(compact, { body: Buffer.from(text), header: signPayload(text, 'other', compact.t) }),
    );

    // Assess
    expect(diagnosis).toEqual({
      ok: false,
      why: `body of ${text.length} bytes, above the ${MAX_DIAGNOSED_BODY_BYTES} the diagnosis reads (the most MAX_BODY_BYTES allows)`,
    });
  });
});
