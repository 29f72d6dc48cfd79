import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { MAX_ENVIRONMENTS } from './lambda-environments.js';
import { BodyBudget, continueBody } from './net.js';

/** What the receiver answers a body over `MAX_BODY_BYTES`; the server answers it the same way. */
const PAYLOAD_TOO_LARGE = { error: 'payload_too_large', reason: 'payload_too_large' } as const;

/** API Gateway's answer when it throttles a call: the server's answer beyond its body budget. */
const TOO_MANY_REQUESTS = { message: 'Too Many Requests' } as const;

/**
 * How many bodies of `MAX_BODY_BYTES` the server reads at once, all connections together (64):
 * every environment busy and as many bodies arriving behind them. Any process on this machine
 * can open connections, and with a bound per body only, each one holding a body just under it
 * for the 30 s the server waits would grow the process without end (SECURITY.md has the
 * measurement).
 */
const LARGEST_BODIES_AT_ONCE = 2 * MAX_ENVIRONMENTS;

/** A client closed its connection before the whole request arrived. */
export class ClientGoneError extends WebhookReceiverError {
  constructor() {
    super('client disconnected before the request was complete');
  }
}

/** The bodies of {@link LARGEST_BODIES_AT_ONCE} calls of up to `maxBodyBytes`, all connections together. */
export function webhookBodyBudget(maxBodyBytes: number): BodyBudget {
  return new BodyBudget(LARGEST_BODIES_AT_ONCE * maxBodyBytes);
}

/** A webhook call's body, or the answer given without reading it (and why, for the inspector). */
export type WebhookBody =
  | { readonly read: true; readonly body: Buffer }
  | {
      readonly read: false;
      readonly statusCode: number;
      readonly answer: object;
      readonly bodyNotRead: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

/**
 * Reads a webhook call's body within its bounds, as API Gateway does: a `Content-Length` over
 * `maxBodyBytes`, or more bytes than that arriving, is answered 413 unread, and a body that does
 * not fit `bodies` while others are read 429 (a sender retries it as it would a throttled call).
 * Rejects with {@link ClientGoneError} when the client goes.
 */
export async function readWebhookBody(
  request: IncomingMessage,
  response: ServerResponse,
  maxBodyBytes: number,
  bodies: BodyBudget,
): Promise<WebhookBody> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) {
    return {
      read: false,
      statusCode: 413,
      answer: PAYLOAD_TOO_LARGE,
      bodyNotRead: `the body was not read: its Content-Length (${declared} bytes) is above MAX_BODY_BYTES (${maxBodyBytes})`,
    };
  }
  // A chunked body may grow to the limit, so that much is held for it.
  const held = request.headers['transfer-encoding'] === undefined ? declared : maxBodyBytes;
  if (!bodies.takeWhileOpen(request, response, held)) {
    return {
      read: false,
      statusCode: 429,
      answer: TOO_MANY_REQUESTS,
      bodyNotRead: `the body was not read: ${LARGEST_BODIES_AT_ONCE} bodies of up to MAX_BODY_BYTES were being read`,
      headers: { 'retry-after': '1' },
    };
  }
  continueBody(response);
  const body = await readBody(request, maxBodyBytes);
  if (body === undefined) {
    return {
      read: false,
      statusCode: 413,
      answer: PAYLOAD_TOO_LARGE,
      bodyNotRead: `the body was not read past MAX_BODY_BYTES (${maxBodyBytes} bytes)`,
    };
  }
  return { read: true, body };
}

/**
 * Reads the whole body; resolves `undefined` as soon as more than `limit` bytes arrived (keeping
 * at most `limit` plus the last chunk), rejects with {@link ClientGoneError} when the client goes.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('close', () => {
      if (!request.complete) reject(new ClientGoneError());
    });
  });
}

/** Reads and drops what is left of a request body, so the answer can be sent without buffering it. */
export function discardBody(request: IncomingMessage): void {
  request.on('data', () => undefined);
  request.resume();
}
