import { describe, expect, it } from 'vitest';
import {
  apiRequestId,
  requestFromEvent,
  responseFromOutcome,
} from '../../../lambda/receiver/api-gateway.js';
import {
  KeyLoadError,
  rejected,
  SinkSendError,
} from '../../../lambda/receiver/decision/receive.js';
import { API_GATEWAY_FLAVOURS, restApiEvent } from '../../support/api-gateway-events.js';

describe('Function: requestFromEvent', () => {
  describe.each(API_GATEWAY_FLAVOURS)('$name', ({ event }) => {
    it('lower-cases header names so Service-Signature is found in any spelling', () => {
      // Prepare
      const input = event({ headers: { 'SERVICE-Signature': 't=1,signature=ab' }, body: '{}' });

      // Act
      const result = requestFromEvent(input);

      // Assess
      expect(result).toMatchObject({
        ok: true,
        request: { method: 'POST', headers: { 'service-signature': 't=1,signature=ab' } },
      });
    });

    it('passes a text body on as the same text, without a round trip through bytes', () => {
      // Prepare
      const body = '{"cost":"€12.50","name":"Zoë"}';

      // Act
      const result = requestFromEvent(event({ body }));

      // Assess
      expect(result.ok && result.request.body).toBe(body);
    });

    it('decodes a base64 body to the exact bytes, including bytes that are not UTF-8', () => {
      // Prepare
      const bytes = Uint8Array.from([0x7b, 0x7d, 0x0d, 0x0a, 0xff, 0x00]);

      // Act
      const result = requestFromEvent(event({ body: bytes }));

      // Assess
      expect(result.ok && [...(result.request.body ?? [])]).toEqual([...bytes]);
    });

    it.each(['e30', 'e30=x', '{}', 'e3 0=', 'e30==='])(
      'passes no bytes for the invalid base64 body %j instead of guessing bytes',
      (encoded) => {
        // Prepare
        const input = { ...event({ body: '{}' }), body: encoded, isBase64Encoded: true };

        // Act
        const result = requestFromEvent(input);

        // Assess
        expect(result.ok && result.request.body).toBeUndefined();
      },
    );

    it('treats a missing body as empty', () => {
      // Act
      const result = requestFromEvent(event({}));

      // Assess
      expect(result.ok && result.request.body).toBe('');
    });

    it('reports the method in upper case', () => {
      // Act
      const result = requestFromEvent(event({ method: 'get' }));

      // Assess
      expect(result.ok && result.request.method).toBe('GET');
    });

    it('exposes API Gateway request id for the logs', () => {
      // Act
      const id = apiRequestId(event({ requestId: 'req-123' }));

      // Assess
      expect(id).toBe('req-123');
    });
  });

  it('copes with a REST API event whose headers are null (test invocations from the console)', () => {
    // Prepare
    const input = { ...restApiEvent({ body: '{}' }), headers: null } as unknown as Parameters<
      typeof requestFromEvent
    >[0];

    // Act
    const result = requestFromEvent(input);

    // Assess
    expect(result).toMatchObject({ ok: true, request: { headers: {} } });
  });
});

describe('Function: responseFromOutcome', () => {
  it.each([
    ['queued', { status: 'queued' }],
    ['ignored', { status: 'ignored' }],
  ] as const)('answers 200 {"status":"%s"}', (kind, body) => {
    // Act
    const response = responseFromOutcome({ kind, status: 200, details: {} });

    // Assess
    expect(response).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  });

  it.each([
    ['method_not_allowed', 405, 'method_not_allowed'],
    ['payload_too_large', 413, 'payload_too_large'],
    ['body_not_json', 400, 'bad_request'],
    ['invalid_payload', 400, 'bad_request'],
    ['unsupported_event', 400, 'bad_request'],
    ['signature_mismatch', 401, 'unauthorized'],
    ['timestamp_too_old', 401, 'unauthorized'],
  ] as const)('answers %s with %i and error %s', (reason, status, error) => {
    // Act
    const response = responseFromOutcome(rejected(reason));

    // Assess
    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toEqual({ error, reason });
  });

  it('names the allowed method on a 405', () => {
    // Act
    const response = responseFromOutcome(rejected('method_not_allowed'));

    // Assess
    expect(response.headers.allow).toBe('POST');
  });

  it.each([
    ['keys_unavailable', new KeyLoadError('DescribeSecret of x failed'), '30'],
    ['queue_unavailable', new SinkSendError('SendMessage to y failed'), '5'],
  ] as const)(
    'answers %s with 503, Retry-After and no error detail',
    (reason, error, retryAfter) => {
      // Act
      const response = responseFromOutcome({
        kind: 'unavailable',
        status: 503,
        reason,
        error,
        details: {},
      });

      // Assess
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe(retryAfter);
      expect(JSON.parse(response.body)).toEqual({ error: 'service_unavailable', reason });
    },
  );
});
