/**
 * How the tools call a receiver: one signed webhook POSTed as the booking service sends it. `send`
 * and `smoke` use it, and the tests call the local run through it.
 * @module
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { SIGNATURE_HEADER } from '../lambda/core/signature-header.js';
import { NETWORK_TIMEOUT_MS } from './network.js';

/** The answer of the receiver to one call. */
export interface WebhookResponse {
  readonly status: number;
  readonly body: string;
}

/**
 * POSTs `body` with the headers the service sends (spec 4.1): `Content-Type: application/json`,
 * `Content-Length`, `Connection: close` and `Service-Signature`.
 *
 * @param signal - aborts the call, the answer's body included (default: after `NETWORK_TIMEOUT_MS`)
 */
export function postWebhook(
  url: string,
  body: Uint8Array,
  signature: string,
  signal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<WebhookResponse> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolveResponse, reject) => {
    const call = request(
      target,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': String(body.byteLength),
          Connection: 'close',
          [SIGNATURE_HEADER]: signature,
        },
        signal,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolveResponse({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}
