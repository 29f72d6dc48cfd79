import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestSource } from '../../loadtest/request-mix.js';
import { bodyDigest, runLoad } from '../../loadtest/run-load.js';
import { closeServer, listen } from '../../local/net.js';

describe('runLoad', () => {
  let server: Server;
  let url: string;
  /** Each request's body and when the server had it whole, in arrival order. */
  const arrivals: Array<{ readonly body: string; readonly at: number }> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        arrivals.push({ body: Buffer.concat(chunks).toString('utf8'), at: performance.now() });
        response.end('{"status":"queued"}');
      });
    });
    url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}/webhook`;
  });
  afterAll(() => closeServer(server));

  /** Eight requests whose bodies name their index, noting when each was built. */
  function recordingSource(): RequestSource & { builtAt: number[] } {
    const builtAt: number[] = [];
    return {
      count: 8,
      builtAt,
      build(index) {
        builtAt[index] = performance.now();
        return { kind: 'valid', body: Buffer.from(`{"index":${index}}`), headers: {} };
      },
    };
  }

  it('builds each request when it is sent by default', async () => {
    // Prepare
    arrivals.length = 0;
    const requests = recordingSource();

    // Act
    const run = await runLoad({ url, requests, concurrency: 1, timeLimitMs: 60_000 });

    // Assess
    expect(run.results.map(({ outcome }) => outcome)).toEqual(Array(8).fill('queued'));
    for (let index = 1; index < 8; index += 1) {
      expect(requests.builtAt[index]).toBeGreaterThan(arrivals[index - 1]?.at ?? Infinity);
    }
  });

  it('builds the first buildAhead requests before sending any, the rest when sent, and pairs each answer with its body', async () => {
    // Prepare
    arrivals.length = 0;
    const requests = recordingSource();

    // Act
    const run = await runLoad({
      url,
      requests,
      concurrency: 1,
      timeLimitMs: 60_000,
      buildAhead: 5,
    });

    // Assess
    const firstArrival = arrivals[0]?.at ?? 0;
    expect(requests.builtAt.slice(0, 5).every((at) => at < firstArrival)).toBe(true);
    expect(requests.builtAt.slice(5).every((at) => at > firstArrival)).toBe(true);
    expect(run.results.map(({ digest }) => digest)).toEqual(
      arrivals.map(({ body }) => bodyDigest(body)),
    );
    expect(arrivals.map(({ body }) => body)).toEqual(
      Array.from({ length: 8 }, (_, index) => `{"index":${index}}`),
    );
  });
});
