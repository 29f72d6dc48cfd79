import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalReceiver } from '../../../local/local-receiver.js';
import { startLocalReceiverInProcess } from '../../support/local-receiver.js';
import { type RawResponse, rawRequest } from '../../support/raw-request.js';
import { scratchDir } from '../../support/scratch-dir.js';

const KEY = 'inspector-bad-input-key';
const dir = scratchDir('inspector-bad-input');

/** One request to the local server: `{id}` in the path is a delivery the inspector lists. */
interface BadRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly status: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const REPLAY = '/_inspector/api/deliveries/{id}/replay';
const LIST = '/_inspector/api/deliveries';

/** Bad methods, ids, origins and bodies on every inspector endpoint, with the 4xx each gets. */
const BAD_REQUESTS: readonly (readonly [string, BadRequest])[] = [
  // Origins: only the inspector page itself may call it.
  [
    'a replay from a sandboxed page',
    { method: 'POST', path: REPLAY, headers: { origin: 'null' }, status: 403 },
  ],
  [
    'a replay from another site',
    { method: 'POST', path: REPLAY, headers: { origin: 'http://evil.example' }, status: 403 },
  ],
  [
    'a replay with an Origin that is no URL',
    { method: 'POST', path: REPLAY, headers: { origin: 'not a url' }, status: 403 },
  ],
  [
    'a replay from another port of this machine',
    { method: 'POST', path: REPLAY, headers: { origin: 'http://127.0.0.1:1' }, status: 403 },
  ],
  [
    'a replay from an https page',
    { method: 'POST', path: REPLAY, headers: { origin: 'https://{host}' }, status: 403 },
  ],
  [
    'a list read by another site',
    { method: 'GET', path: LIST, headers: { origin: 'http://evil.example' }, status: 403 },
  ],
  [
    'the live stream opened by a sandboxed page',
    { method: 'GET', path: '/_inspector/api/stream', headers: { origin: 'null' }, status: 403 },
  ],
  [
    'the page addressed to another host name',
    { method: 'GET', path: '/_inspector', headers: { host: 'evil.example' }, status: 403 },
  ],
  // Methods.
  [
    'PUT on the list',
    { method: 'PUT', path: LIST, body: '{}', headers: JSON_HEADERS, status: 405 },
  ],
  ['POST on the list', { method: 'POST', path: LIST, status: 405 }],
  [
    'DELETE on a delivery',
    { method: 'DELETE', path: '/_inspector/api/deliveries/{id}', status: 405 },
  ],
  ['PATCH on the page', { method: 'PATCH', path: '/_inspector', status: 405 }],
  ['TRACE on the stream', { method: 'TRACE', path: '/_inspector/api/stream', status: 405 }],
  ['GET on a replay', { method: 'GET', path: REPLAY, status: 405 }],
  ['OPTIONS on a replay', { method: 'OPTIONS', path: REPLAY, status: 405 }],
  // Ids and paths.
  ['an unknown id', { method: 'GET', path: '/_inspector/api/deliveries/no-such-id', status: 404 }],
  ['a NUL id', { method: 'GET', path: '/_inspector/api/deliveries/%00', status: 404 }],
  ['a markup id', { method: 'GET', path: '/_inspector/api/deliveries/%3Cscript%3E', status: 404 }],
  [
    'a 5,000-character id',
    { method: 'GET', path: `/_inspector/api/deliveries/${'a'.repeat(5000)}`, status: 404 },
  ],
  [
    'an id climbing out of the API',
    { method: 'GET', path: '/_inspector/api/deliveries/..%2F..%2Fpackage.json', status: 404 },
  ],
  [
    'a path climbing out of the inspector',
    { method: 'GET', path: '/_inspector/../package.json', status: 404 },
  ],
  [
    'a replay of an unknown id',
    { method: 'POST', path: '/_inspector/api/deliveries/no-such-id/replay', status: 404 },
  ],
  ['an unknown asset', { method: 'GET', path: '/_inspector/inspector.ts', status: 404 }],
  // Bodies.
  [
    'a replay with broken JSON',
    { method: 'POST', path: REPLAY, headers: JSON_HEADERS, body: '{"', status: 400 },
  ],
  [
    'a replay whose body is a JSON array',
    { method: 'POST', path: `${REPLAY}?fresh=1`, headers: JSON_HEADERS, body: '[]', status: 400 },
  ],
  [
    'a replay with a 2 KiB body',
    {
      method: 'POST',
      path: REPLAY,
      headers: JSON_HEADERS,
      body: `{"a":"${'x'.repeat(2048)}"}`,
      status: 413,
    },
  ],
  [
    'broken JSON posted to the list',
    { method: 'POST', path: LIST, headers: JSON_HEADERS, body: '[[[', status: 405 },
  ],
];

/** Sends one request; resolves with its status, content type and body. */
function send(origin: URL, bad: BadRequest, id: string): Promise<RawResponse> {
  const fill = (text: string) => text.replaceAll('{id}', id).replaceAll('{host}', origin.host);
  const headers = Object.fromEntries(
    Object.entries(bad.headers ?? {}).map(([name, value]) => [name, fill(value)]),
  );
  return rawRequest(new URL(fill(bad.path), origin), {
    method: bad.method,
    headers,
    ...(bad.body === undefined ? {} : { body: bad.body }),
  });
}

describe('Function: the inspector API (bad input)', () => {
  let receiver: LocalReceiver;
  let origin: URL;
  let id: string;

  beforeAll(async () => {
    // A handler error is rethrown by this helper: a 5xx from the inspector would fail the run.
    receiver = await startLocalReceiverInProcess(KEY, join(dir(), 'receiver'));
    origin = new URL(receiver.webhook.url);
    const forged = await fetch(receiver.webhook.url, { method: 'POST', body: '{}' });
    id = forged.headers.get('x-amzn-requestid') ?? '';
  });

  afterAll(async () => {
    await receiver?.close();
  });

  it.each(BAD_REQUESTS)('answers %s with a 4xx JSON message', async (_name, bad) => {
    // Act
    const answer = await send(origin, bad, id);

    // Assess
    expect(answer.status).toBe(bad.status);
    expect(answer.type).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({ message: expect.any(String) });
    expect(answer.body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('still lists the delivery and answers its own page afterwards', async () => {
    // Act
    const answer = await send(origin, { method: 'GET', path: LIST, status: 200 }, id);

    // Assess
    expect(answer.status).toBe(200);
    const { deliveries } = JSON.parse(answer.body) as { deliveries: { id: string }[] };
    expect(deliveries.map((delivery) => delivery.id)).toEqual([id]);
  });
});
