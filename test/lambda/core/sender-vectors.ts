import { readFileSync } from 'node:fs';
import type { SignedForm, VerifyFailureReason } from '../../../lambda/core/verify-signature.js';

/** One call signed by a real sender implementation (see test/fixtures/signatures/generate.*). */
export interface SenderVector {
  readonly name: string;
  readonly key: string;
  readonly t: number;
  /** The body as sent. */
  readonly body: string;
  /** The text the sender passed to its HMAC after `<t>.`. */
  readonly signed: string;
  readonly header: string;
  readonly expect:
    | { readonly ok: true; readonly form: SignedForm }
    | { readonly ok: false; readonly reason: VerifyFailureReason };
}

function load(file: string): SenderVector[] {
  const url = new URL(`../../fixtures/signatures/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { vectors: SenderVector[] }).vectors;
}

/** Vectors from PHP (`json_encode` + `hash_hmac`), the most likely sender. */
export const phpVectors: readonly SenderVector[] = load('php.json');

/** Vectors from Python (`json.dumps` + `hmac`). */
export const pythonVectors: readonly SenderVector[] = load('python.json');

/** Every vector, PHP first. */
export const senderVectors: readonly SenderVector[] = [...phpVectors, ...pythonVectors];

/** The vector with this name; fails the test run loudly when a fixture was renamed. */
export function senderVector(name: string): SenderVector {
  const vector = senderVectors.find((candidate) => candidate.name === name);
  if (vector === undefined) throw new Error(`No sender vector named ${name}`);
  return vector;
}
