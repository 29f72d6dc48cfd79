import type { IncomingMessage, ServerResponse } from 'node:http';
import { pageAssets } from './page-assets.js';

/**
 * How the inspector's server answers, the local run's and the console's alike: JSON with the
 * page's security headers, the page's files, and the one rule for the body of an action (a POST
 * from the page, `{}`).
 * @module
 */

export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
} as const;

/** Longest replay body read: the page sends `{}`. */
const MAX_REPLAY_BODY_BYTES = 1024;

/**
 * Reads a replay request's body, which must be empty or a JSON object (the page posts `{}` as
 * `application/json`); resolves with the status and reason to refuse it with, or `undefined`.
 */
export function replayBodyProblem(
  request: IncomingMessage,
): Promise<{ status: number; message: string } | undefined> {
  return new Promise((resolveProblem) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REPLAY_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      if (size > MAX_REPLAY_BODY_BYTES) {
        resolveProblem({
          status: 413,
          message: `the body of a replay is at most ${MAX_REPLAY_BODY_BYTES} bytes`,
        });
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8').trim();
      resolveProblem(
        text === '' || isJsonObject(text)
          ? undefined
          : { status: 400, message: 'the body of a replay must be empty or a JSON object' },
      );
    });
  });
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', ...PAGE_HEADERS });
  response.end(JSON.stringify(body));
}

/**
 * Serves one of the page's files (`''` is `index.html`); `false` when `route` names none.
 *
 * @param route - the path under the inspector's, without its leading slash
 */
export async function serveAsset(route: string, response: ServerResponse): Promise<boolean> {
  const asset = (await pageAssets()).get(route === '' ? 'index.html' : route);
  if (asset === undefined) return false;
  response.writeHead(200, { 'content-type': asset.contentType, ...PAGE_HEADERS });
  response.end(asset.body);
  return true;
}
