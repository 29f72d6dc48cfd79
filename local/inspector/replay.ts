import { request as httpRequest } from 'node:http';
import { squashJson } from '../../lambda/core/canonical-json.js';
import { WebhookReceiverError } from '../../lambda/core/errors.js';
import { signPayload, verifySignature } from '../../lambda/core/index.js';
import { SIGNATURE_HEADER, SIGNATURE_HEADER_KEY } from '../../lambda/core/signature-header.js';
import { decodeBody } from '../../lambda/core/signed-text.js';
import type { StoredDelivery } from './delivery.js';

/** How a delivery is sent again. */
export interface ReplayOptions {
  /** Base URL of the local server, e.g. `http://127.0.0.1:3000`. */
  readonly origin: string;
  /** When set, `Service-Signature` is replaced by one made with this key at the current time. */
  readonly freshSignatureKey?: string;
}

/** The answer to a replay. */
export interface ReplayAnswer {
  readonly status: number;
  /** The new delivery's id (`x-amzn-RequestId`). */
  readonly requestId: string | undefined;
}

/** Why a delivery whose body was kept truncated cannot be replayed: the inspector's answer. */
export const NOT_REPLAYABLE =
  'the body was above 64 KiB and is kept truncated: it cannot be replayed exactly';

/** A replay asked of a delivery whose exact bytes are not kept (the inspector checks first). */
export class NotReplayableError extends WebhookReceiverError {}

/** Why a delivery whose body is not JSON cannot be replayed with a fresh signature. */
export const NOT_SIGNABLE =
  'the body is not a single JSON value, which the service never signs: replay the exact request instead';

/** Why a body the local key never signed is not signed afresh: the inspector's answer. */
export const NOT_SIGNED_BY_KEY =
  "the call's signature does not match this endpoint's local key over this body, so the key never signed it and the inspector will not: a fresh signature replaces only the timestamp of a call the key signed already (a stale but genuine call); replay the exact request instead";

/**
 * Why `delivery` is not to be signed afresh with `key`, or `undefined` when it may be: its body
 * must be JSON ({@link NOT_SIGNABLE}) and one of its `Service-Signature` values must match `key`
 * over it at the time that value names, however old ({@link NOT_SIGNED_BY_KEY}). Any process
 * of this machine can post a body to the webhook and ask the inspector to replay it, so signing
 * a body the key never signed would hand it a valid signature over bytes of its choice; a body
 * the key signed gains only a newer timestamp.
 */
export function freshSigningRefusal(
  delivery: Pick<StoredDelivery, 'rawHeaders' | 'bytes' | 'receivedAt'>,
  key: string,
): string | undefined {
  const body = delivery.bytes;
  if (body === undefined) return NOT_REPLAYABLE;
  if (!squashJson(decodeBody(body)).ok) return NOT_SIGNABLE;
  const header: string[] = [];
  const { rawHeaders } = delivery;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index]?.toLowerCase() === SIGNATURE_HEADER_KEY) {
      header.push(rawHeaders[index + 1] ?? '');
    }
  }
  const verified = verifySignature({
    header,
    body,
    keys: [key],
    now: Math.floor(delivery.receivedAt / 1000),
    // The signature is what counts here, not its age: a stale genuine call is what a fresh
    // signature is for.
    toleranceSeconds: Number.POSITIVE_INFINITY,
  });
  return verified.ok ? undefined : NOT_SIGNED_BY_KEY;
}

/**
 * Sends a kept delivery to the local server again: same method, target, headers (names as
 * spelled, in order; `Host` is the server's) and exact body bytes; with a fresh signature, its
 * `Service-Signature` is replaced, or added when the call had none. Only to the local server's
 * own origin: the inspector never sends anything off this machine.
 *
 * @throws {NotReplayableError} when the body was too large to keep, so an exact replay is impossible
 * @throws {BodyNotJsonError} when a fresh signature is asked of a body that is not JSON ({@link NOT_SIGNABLE})
 */
export function replayDelivery(
  delivery: StoredDelivery,
  options: ReplayOptions,
): Promise<ReplayAnswer> {
  const body = delivery.bytes;
  if (body === undefined) {
    throw new NotReplayableError(NOT_REPLAYABLE);
  }
  // Signed before anything is sent, so a body that cannot be signed sends nothing.
  const freshSignature =
    options.freshSignatureKey === undefined
      ? undefined
      : signPayload(body, options.freshSignatureKey, Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {};
  let signed = false;
  const { rawHeaders } = delivery;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    let value = rawHeaders[index + 1] ?? '';
    if (name.toLowerCase() === 'host') continue;
    if (name.toLowerCase() === SIGNATURE_HEADER_KEY && freshSignature !== undefined) {
      value = freshSignature;
      signed = true;
    }
    headers[name] = value;
  }
  if (freshSignature !== undefined && !signed) headers[SIGNATURE_HEADER] = freshSignature;
  const url = new URL(delivery.target, options.origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: delivery.method, headers }, (response) => {
      response.resume();
      response.on('end', () => {
        const id = response.headers['x-amzn-requestid'];
        resolve({
          status: response.statusCode ?? 0,
          requestId: typeof id === 'string' ? id : undefined,
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
