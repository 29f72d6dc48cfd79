import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../lambda/core/verify-signature.js';
import {
  isRunBody,
  type RequestKind,
  requestMix,
  type WebhookRequest,
} from '../../loadtest/request-mix.js';

const KEY = 'whsec-mix-test';
const NOW = 1_795_000_000;

function buildAll(seed = 7, count = 200) {
  const mix = requestMix({
    count,
    key: KEY,
    runId: 'r1',
    seed,
    toleranceSeconds: 300,
    maxBodyBytes: 4096,
    now: () => NOW,
  });
  const requests = Array.from({ length: count }, (_, index) => mix.build(index));
  return { mix, requests };
}

const verify = (request: WebhookRequest) =>
  verifySignature({
    header: request.headers['service-signature'],
    body: request.body,
    keys: [KEY],
    now: NOW,
  });

const ofKind = (requests: WebhookRequest[], kind: RequestKind) =>
  requests.filter((request) => request.kind === kind);

describe('Function: requestMix', () => {
  it('makes exactly the default shares of each kind, starting with a genuine call', () => {
    // Act
    const { mix } = buildAll();

    // Assess
    const counts = Object.fromEntries(
      ['valid', 'replayed', 'forged', 'stale', 'oversized', 'ignored'].map((kind) => [
        kind,
        mix.kinds.filter((k) => k === kind).length,
      ]),
    );
    expect(counts).toEqual({
      valid: 100,
      replayed: 20,
      forged: 30,
      stale: 20,
      oversized: 10,
      ignored: 20,
    });
    expect(mix.kinds[0]).toBe('valid');
  });

  it('builds the same run from the same seed and another order from another seed', () => {
    // Act
    const first = buildAll(7).requests.map((request) => request.body.toString());
    const again = buildAll(7).requests.map((request) => request.body.toString());
    const other = buildAll(8).requests.map((request) => request.body.toString());

    // Assess
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('gives each call the verification result its kind stands for', () => {
    // Act
    const { requests } = buildAll();

    // Assess
    for (const request of [...ofKind(requests, 'valid'), ...ofKind(requests, 'ignored')]) {
      expect(verify(request)).toMatchObject({ ok: true });
    }
    expect(new Set(ofKind(requests, 'forged').map((request) => verify(request).ok))).toEqual(
      new Set([false]),
    );
    for (const request of ofKind(requests, 'stale')) {
      expect(verify(request)).toEqual({
        ok: false,
        reason: 'timestamp_too_old',
        timestamp: NOW - 360,
      });
    }
    for (const request of ofKind(requests, 'oversized')) {
      expect(request.body.byteLength).toBeGreaterThan(4096);
      expect(verify(request)).toMatchObject({ ok: true });
    }
  });

  it('resends an earlier genuine call byte for byte, header included, as a replay', () => {
    // Act
    const { requests } = buildAll();

    // Assess
    const firstReplay = requests.findIndex((request) => request.kind === 'replayed');
    const original = requests
      .slice(0, firstReplay)
      .find((request) => request.body.equals(requests[firstReplay]?.body ?? Buffer.alloc(0)));
    expect(original?.kind).toBe('valid');
    expect(original?.headers).toEqual(requests[firstReplay]?.headers);
  });

  it('makes every other body distinct and marks all of them as this run', () => {
    // Act
    const { requests } = buildAll();

    // Assess
    const fresh = requests.filter((request) => request.kind !== 'replayed');
    expect(new Set(fresh.map((request) => request.body.toString())).size).toBe(fresh.length);
    expect(requests.every((request) => isRunBody(request.body.toString(), 'r1'))).toBe(true);
    expect(isRunBody(requests[0]?.body.toString() ?? '', 'r2')).toBe(false);
    expect(isRunBody('not json', 'r1')).toBe(false);
  });
});
