import { request as httpRequest } from 'node:http';
import { WebhookReceiverError } from '../../lambda/core/errors.js';
import { signPayload } from '../../lambda/core/index.js';
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

/**
 * Sends a kept delivery to the local server again: same method, target, headers (names as
 * spelled, in order; `Host` is the server's) and exact body bytes. Only to the local server's own
 * origin: the inspector never sends anything off this machine.
 *
 * @throws {NotReplayableError} when the body was too large to keep, so an exact replay is impossible
 */
export function replayDelivery(
  delivery: StoredDelivery,
  options: ReplayOptions,
): Promise<ReplayAnswer> {
  const body = delivery.bytes;
  if (body === undefined) {
    throw new NotReplayableError(NOT_REPLAYABLE);
  }
  const headers: Record<string, string> = {};
  const { rawHeaders } = delivery;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    let value = rawHeaders[index + 1] ?? '';
    if (name.toLowerCase() === 'host') continue;
    if (name.toLowerCase() === 'service-signature' && options.freshSignatureKey !== undefined) {
      value = signPayload(body, options.freshSignatureKey, Math.floor(Date.now() / 1000));
    }
    headers[name] = value;
  }
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
