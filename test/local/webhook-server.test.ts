import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ProxyHandler,
  startWebhookServer,
  type WebhookServer,
} from '../../local/webhook-server.js';

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

describe('Function: startWebhookServer', () => {
  let server: WebhookServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('hands the handler the exact request and answers with its result', async () => {
    // Prepare
    const { handler, events } = recordingHandler({
      statusCode: 401,
      headers: { 'content-type': 'application/json' },
      body: '{"error":"unauthorized","reason":"signature_mismatch"}',
    });
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler });
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

  it('passes other methods on /webhook to the handler so it can answer 405', async () => {
    // Prepare
    const { handler, events } = recordingHandler({ statusCode: 405, body: '' });
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler });

    // Act
    const response = await fetch(server.url, { method: 'GET' });

    // Assess
    expect(response.status).toBe(405);
    expect(events.map((event) => event.httpMethod)).toEqual(['GET']);
  });

  it('answers 404 without calling the handler for any other path', async () => {
    // Prepare
    const { handler, events } = recordingHandler();
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', handler });

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
});
