import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ObservedDelivery,
  startWebhookServer,
  type WebhookServer,
} from '../../local/webhook-server.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';

// Issue 20, finding 4: a delivery observer that threw was reported as the handler's failure and
// the server destroyed the kept-alive connection of a request it had already answered.
describe('Function: startWebhookServer with a delivery observer', () => {
  let server: WebhookServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reports an observer that throws once as its own, and keeps the answer and the connection', async () => {
    // Prepare
    const observerFailure = new Error('the observer broke');
    const observed: ObservedDelivery[] = [];
    const onHandlerError = vi.fn();
    const onDeliveryError = vi.fn();
    let calls = 0;
    server = await startWebhookServer({
      port: 0,
      host: '127.0.0.1',
      maxBodyBytes: 262_144,
      handler: async () => {
        calls += 1;
        return calls === 1
          ? { statusCode: 401, body: '{"error":"unauthorized","reason":"signature_mismatch"}' }
          : { statusCode: 200, body: '{"status":"queued"}' };
      },
      onDelivery: (delivery) => {
        observed.push(delivery);
        if (observed.length === 1) throw observerFailure;
      },
      onDeliveryError,
      onHandlerError,
    });
    const connection = await KeptAliveConnection.open(server.url);

    // Act
    const answers = [];
    try {
      answers.push(await connection.send({ method: 'POST', target: '/webhook', body: '[[]]' }));
      answers.push(await connection.send({ method: 'POST', target: '/webhook', body: '{}' }));
    } finally {
      connection.close();
    }

    // Assess
    expect(answers.map(({ status, body }) => [status, body])).toEqual([
      [401, '{"error":"unauthorized","reason":"signature_mismatch"}'],
      [200, '{"status":"queued"}'],
    ]);
    await vi.waitFor(() => expect(observed).toHaveLength(2));
    expect(observed.map(({ statusCode, body }) => [statusCode, body.toString()])).toEqual([
      [401, '[[]]'],
      [200, '{}'],
    ]);
    expect(onDeliveryError.mock.calls).toEqual([[observerFailure]]);
    expect(onHandlerError).not.toHaveBeenCalled();
  });
});
