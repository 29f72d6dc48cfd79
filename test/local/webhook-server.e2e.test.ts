import { connect } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ENVIRONMENTS, type ProxyHandler } from '../../local/lambda-environments.js';
import { startWebhookServer, type WebhookServer } from '../../local/webhook-server.js';

/** A stand-in handler that records what it was given and answers like the receiver would. */
const recordingHandler = (
  answer: APIGatewayProxyResult = { statusCode: 200, headers: {}, body: '{"status":"queued"}' },
): { handler: ProxyHandler; events: APIGatewayProxyEvent[] } => {
  const events: APIGatewayProxyEvent[] = [];
  return {
    events,
    handler: async (event) => {
      events.push(event);
      return answer;
    },
  };
};

const MAX_BODY_BYTES = 262_144;

/** Sends raw bytes and resolves with everything the server answered until it closed or `waitMs` passed. */
function rawRequest(port: number, text: string, waitMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.write(text);
    setTimeout(() => {
      socket.destroy();
      resolve(answer);
    }, waitMs).unref();
  });
}

describe('Function: startWebhookServer', () => {
  let server: WebhookServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('hands every /webhook/<name> to the handler with named endpoints, and answers 404 itself for other paths', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      namedEndpoints: true,
      maxBodyBytes: MAX_BODY_BYTES,
    });
    const paths = [
      '/webhook/eu',
      '/webhook/any-name?x=1',
      '/webhook',
      '/webhook/',
      '/webhook/eu/x',
    ];

    // Act
    const statuses = [];
    for (const path of paths) {
      const response = await fetch(new URL(path, server.url), { method: 'POST', body: '{}' });
      statuses.push(`${path} ${response.status}`);
    }

    // Assess
    expect(statuses).toEqual([
      '/webhook/eu 200',
      '/webhook/any-name?x=1 200',
      '/webhook 404',
      '/webhook/ 404',
      '/webhook/eu/x 404',
    ]);
    expect(events.map((event) => event.path)).toEqual(['/webhook/eu', '/webhook/any-name']);
  });

  it('hands the handler the exact request and answers with its result', async () => {
    // Prepare
    const { handler, events } = recordingHandler({
      statusCode: 401,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"unauthorized","reason":"signature_mismatch"}',
    });
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      maxBodyBytes: MAX_BODY_BYTES,
    });
    const body = '{\n  "event": "event_booked",\n  "url": "https:\\/\\/x"\n}';

    // Act
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Signature': 't=1,signature=ab' },
      body,
    });

    // Assess
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthorized', reason: 'signature_mismatch' });
    expect(response.headers.get('x-amzn-requestid')).toBe(events[0]?.requestContext.requestId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      httpMethod: 'POST',
      path: '/webhook',
      body,
      isBase64Encoded: false,
      headers: { 'Service-Signature': 't=1,signature=ab', 'Content-Type': 'application/json' },
    });
  });

  it('reports the socket address as the source, an IPv4 caller of a dual-stack socket without ::ffff:, as API Gateway does', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({
      port: 0,
      host: '::',
      handler,
      maxBodyBytes: MAX_BODY_BYTES,
    });

    // Act
    for (const host of ['127.0.0.1', '[::1]']) {
      await fetch(`http://${host}:${server.port}/webhook`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': '203.0.113.10' },
        body: '{}',
      });
    }

    // Assess
    expect(events.map((event) => event.requestContext.identity.sourceIp)).toEqual([
      '127.0.0.1',
      '::1',
    ]);
  });

  it('passes other methods on /webhook to the handler so it can answer 405', async () => {
    // Prepare
    const { handler, events } = recordingHandler({ statusCode: 405, body: '' });
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      maxBodyBytes: MAX_BODY_BYTES,
    });

    // Act
    const response = await fetch(server.url, { method: 'GET' });

    // Assess
    expect(response.status).toBe(405);
    expect(events.map((event) => event.httpMethod)).toEqual(['GET']);
  });

  it('answers 404 without calling the handler for any other path', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      maxBodyBytes: MAX_BODY_BYTES,
    });

    // Act
    const response = await fetch(new URL('/webhooks', server.url), { method: 'POST', body: '{}' });

    // Assess
    expect(response.status).toBe(404);
    expect(events).toHaveLength(0);
  });

  it('answers 502 and reports the error when the handler throws', async () => {
    // Prepare
    const errors: unknown[] = [];
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      maxBodyBytes: MAX_BODY_BYTES,
      handler: async () => {
        throw new Error('boom');
      },
      onHandlerError: (error) => errors.push(error),
    });

    // Act
    const response = await fetch(server.url, { method: 'POST', body: '{}' });

    // Assess
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
    expect(errors).toEqual([new Error('boom')]);
  });

  it.each([
    ['//', 404],
    ['/webhook/..', 404],
    ['*', 400],
    ['http://127.0.0.1/webhook', 400],
    ['http://[::1', 400],
    ['example.com:443', 400],
  ])('answers %s with %i and a JSON body, without calling the handler', async (target, status) => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler, maxBodyBytes: 10 });

    // Act
    const answer = await rawRequest(
      server.port,
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );

    // Assess
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(answer).toContain('content-type: application/json');
    expect(answer).not.toMatch(/at .*\.ts:\d+/);
    expect(events).toHaveLength(0);
  });

  it.each([
    'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
    'CONNECT /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    'CONNECT example.com:80 HTTP/1.1\r\nHost: example.com:80\r\nContent-Length: 2\r\n\r\n{}',
  ])('answers %j with 400 and a JSON body, then closes the connection', async (text) => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler, maxBodyBytes: 10 });

    // Act
    const answer = await rawRequest(server.port, text);

    // Assess
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
    expect(answer).toContain('content-type: application/json\r\n');
    expect(answer).toContain('connection: close\r\n');
    expect(answer.endsWith('\r\n\r\n{"message":"Bad Request"}')).toBe(true);
    expect(events).toHaveLength(0);
  });

  it('answers 413 from Content-Length alone, before the body is sent', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler, maxBodyBytes: 1000 });

    // Act
    const answer = await rawRequest(
      server.port,
      'POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1001\r\n\r\n',
    );

    // Assess
    expect(answer).toMatch(/^HTTP\/1.1 413 /);
    expect(answer).toContain('{"error":"payload_too_large","reason":"payload_too_large"}');
    expect(events).toHaveLength(0);
  });

  it('answers 413 as soon as a chunked body passes the limit', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler, maxBodyBytes: 1000 });
    const chunk = 'x'.repeat(1001);

    // Act: the chunked body never ends; the answer must come anyway.
    const answer = await rawRequest(
      server.port,
      `POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      1_000,
    );

    // Assess
    expect(answer).toMatch(/^HTTP\/1.1 413 /);
    expect(events).toHaveLength(0);
  });

  it('answers 429 to a body beyond what 64 bodies at the limit hold, until those connections close', async () => {
    // Prepare: 64 connections each hold a body of 1,000 declared bytes, one byte short.
    const { handler } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler, maxBodyBytes: 1000 });
    const port = server.port;
    const holding = Array.from({ length: 64 }, () => {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(999)}`,
      );
      return socket;
    });
    const call = (body: string) =>
      rawRequest(
        port,
        `POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        1_000,
      );
    await expect.poll(() => call('{}'), { timeout: 5_000 }).toMatch(/^HTTP\/1.1 429 /);

    // Act
    const refused = await call('{}');
    for (const socket of holding) socket.destroy();
    await expect.poll(() => call('{}'), { timeout: 5_000 }).toMatch(/^HTTP\/1.1 200 /);

    // Assess
    expect(refused).toMatch(/^HTTP\/1.1 429 /);
    expect(refused.toLowerCase()).toContain('retry-after: 1');
    expect(refused).toContain('{"message":"Too Many Requests"}');
  });

  it('answers 408 and drops a body that does not arrive within the body time-out', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      maxBodyBytes: 1000,
      headersTimeoutMs: 300,
      bodyTimeoutMs: 500,
    });

    // Act
    const answer = await rawRequest(
      server.port,
      'POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{',
      3_000,
    );

    // Assess
    expect(answer).toMatch(/^HTTP\/1.1 408 /);
    expect(events).toHaveLength(0);
  });

  it('reports a client that disconnects mid-body as a disconnect, not a handler failure', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    const gone: string[] = [];
    const errors: unknown[] = [];
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      handler,
      maxBodyBytes: 1000,
      onClientGone: (line) => gone.push(line),
      onHandlerError: (error) => errors.push(error),
    });

    // Act
    await rawRequest(
      server.port,
      'POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{',
      200,
    );
    await new Promise((wait) => setTimeout(wait, 100));

    // Assess
    expect(gone).toEqual(['POST /webhook: client disconnected before the request was complete']);
    expect(errors).toEqual([]);
    expect(events).toHaveLength(0);
  });

  it('calls the handler one request at a time, as one Lambda environment does', async () => {
    // Prepare
    const environment = countingEnvironment();
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      maxBodyBytes: 1000,
      handler: environment.handler,
    });

    // Act
    const statuses = await postAtOnce(server.url, 20);

    // Assess
    expect(statuses).toEqual(Array(20).fill(200));
    expect(environment.mostAtOnce()).toBe(1);
  });

  it('starts another environment for a call that finds every one busy, each still taking one call at a time', async () => {
    // Prepare
    const environments: Array<ReturnType<typeof countingEnvironment>> = [];
    const start = (): ProxyHandler => {
      const environment = countingEnvironment();
      environments.push(environment);
      return environment.handler;
    };
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      maxBodyBytes: 1000,
      handler: start(),
      startEnvironment: start,
    });

    // Act
    const statuses = await postAtOnce(server.url, MAX_ENVIRONMENTS + 8);

    // Assess: more calls than environments may run, so some waited for a free one.
    expect(statuses).toEqual(Array(MAX_ENVIRONMENTS + 8).fill(200));
    expect(environments.length).toBeGreaterThan(1);
    expect(environments.length).toBeLessThanOrEqual(MAX_ENVIRONMENTS);
    expect(new Set(environments.map((environment) => environment.mostAtOnce()))).toEqual(
      new Set([1]),
    );
    expect(environments.reduce((total, environment) => total + environment.calls(), 0)).toBe(
      MAX_ENVIRONMENTS + 8,
    );
  });

  it('answers the calls under way before it stops, and stops without waiting for idle connections', async () => {
    // Prepare: a handler that holds its call until released, and an idle kept-alive connection.
    const held = heldHandler();
    server = await serveOnLoopback(held.handler);
    // Answered 404 by the server itself: its connection stays open, idle, in fetch's pool.
    const idle = await fetch(new URL('/elsewhere', server.url));
    await idle.text();
    const call = fetch(server.url, { method: 'POST', body: '{}' });
    await held.running;

    // Act
    let stopped = false;
    const stopping = server.close().then(() => {
      stopped = true;
    });
    await new Promise((wait) => setTimeout(wait, 100));
    const stoppedWhileHeld = stopped;
    const releasedAt = Date.now();
    held.release();
    const response = await call;
    await stopping;
    const stopMs = Date.now() - releasedAt;
    server = undefined;

    // Assess
    expect(stoppedWhileHeld).toBe(false);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"status":"queued"}');
    expect(stopped).toBe(true);
    // The idle connection did not hold the stop (fetch would keep it open for 4 s).
    expect(stopMs).toBeLessThan(1_000);
  });

  it('drops the connection of a call still under way when the drain time-out passes', async () => {
    // Prepare: a handler that never answers, with a call in it.
    const held = heldHandler();
    server = await serveOnLoopback(held.handler, { drainTimeoutMs: 200 });
    const pending = rawRequest(
      server.port,
      'POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}',
      5_000,
    );
    await held.running;

    // Act
    const startedAt = Date.now();
    await server.close();
    server = undefined;
    const answer = await pending;

    // Assess: stopped after the time-out, not before; the caller got no answer, so it retries.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(answer).toBe('');
  });

  it('answers the call under way with connection: close and takes no request pipelined behind it', async () => {
    // Prepare: two calls sent back to back on one connection, the first held in the handler.
    const held = heldHandler();
    server = await serveOnLoopback(held.handler);
    const call = 'POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}';
    const answers = rawRequest(server.port, `${call}${call}`, 5_000);
    await held.running;

    // Act
    const stopping = server.close();
    held.release();
    await stopping;
    server = undefined;
    const answer = await answers;

    // Assess: one answer, which closed the connection; the second call never reached the handler.
    expect(answer.match(/^HTTP\/1\.1 /gm)).toEqual(['HTTP/1.1 ']);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(held.calls()).toBe(1);
  });

  it('drops a call whose body is still arriving instead of waiting for it', async () => {
    // Prepare: a call that announces 10 bytes and sends 2, so it never reaches the handler.
    const held = heldHandler();
    server = await serveOnLoopback(held.handler);
    const answers = rawRequest(
      server.port,
      'POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}',
      5_000,
    );
    await new Promise((wait) => setTimeout(wait, 200));

    // Act
    const startedAt = Date.now();
    await server.close();
    server = undefined;

    // Assess: not held for the drain time-out (15 s), and nothing handled or answered.
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    expect(await answers).toBe('');
    expect(held.calls()).toBe(0);
  });
});

/** A server for `handler` on a free loopback port, with the receiver's body limit. */
function serveOnLoopback(
  handler: ProxyHandler,
  options: { readonly drainTimeoutMs?: number } = {},
): Promise<WebhookServer> {
  return startWebhookServer({
    port: 0,
    host: '127.0.0.1',
    handler,
    maxBodyBytes: MAX_BODY_BYTES,
    ...options,
  });
}

/**
 * A handler that holds every call until `release`: `running` settles when the first call is in
 * it, `calls` counts the calls it was given.
 */
function heldHandler(): {
  handler: ProxyHandler;
  running: Promise<void>;
  release: () => void;
  calls: () => number;
} {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let calls = 0;
  return {
    handler: async () => {
      calls++;
      started();
      await held;
      return { statusCode: 200, headers: {}, body: '{"status":"queued"}' };
    },
    running,
    release: () => release(),
    calls: () => calls,
  };
}

/** A handler that takes 5 ms per call and counts how many calls it ran at once, at most. */
function countingEnvironment(): {
  handler: ProxyHandler;
  mostAtOnce: () => number;
  calls: () => number;
} {
  let running = 0;
  let mostAtOnce = 0;
  let calls = 0;
  return {
    handler: async () => {
      running++;
      calls++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((wait) => setTimeout(wait, 5));
      running--;
      return { statusCode: 200, body: '{}' };
    },
    mostAtOnce: () => mostAtOnce,
    calls: () => calls,
  };
}

/** Posts `count` calls at once; resolves with their statuses. */
function postAtOnce(url: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, async () => (await fetch(url, { method: 'POST' })).status),
  );
}
