import { describe, expect, it } from 'vitest';
import {
  fromProxyResult,
  type RawHttpRequest,
  toApiGatewayEvent,
} from '../../local/api-gateway-event.js';

const OPTIONS = { requestId: 'req-1', requestTimeEpoch: 1_428_582_896_000, stage: 'local' };

const rawRequest = (overrides: Partial<RawHttpRequest> = {}): RawHttpRequest => ({
  method: 'POST',
  target: '/webhook',
  httpVersion: '1.1',
  rawHeaders: ['Host', '127.0.0.1:3000', 'Content-Type', 'application/json'],
  body: Buffer.from('{"event":"event_booked"}'),
  sourceIp: '127.0.0.1',
  ...overrides,
});

/** The bytes the handler will see, decoded the way API Gateway's contract says. */
const bodyBytes = (event: { body: string | null; isBase64Encoded: boolean }): Buffer =>
  Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');

describe('Function: toApiGatewayEvent', () => {
  it('passes a UTF-8 body as text, byte for byte, including pretty-printing and escapes', () => {
    // Prepare
    const body = Buffer.from('{\r\n  "name": "Zoë \\u00e9 \\/ x",\t"cost": "€12.50"\n}');

    // Act
    const event = toApiGatewayEvent(rawRequest({ body }), OPTIONS);

    // Assess
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(body.toString('utf8'));
    expect(bodyBytes(event).equals(body)).toBe(true);
  });

  it('keeps a leading byte order mark so the text re-encodes to the same bytes', () => {
    // Prepare
    const body = Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"a":1}')]);

    // Act
    const event = toApiGatewayEvent(rawRequest({ body }), OPTIONS);

    // Assess
    expect(event.isBase64Encoded).toBe(false);
    expect(bodyBytes(event).equals(body)).toBe(true);
  });

  it('base64-encodes a body that is not valid UTF-8 and flags it', () => {
    // Prepare
    const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);

    // Act
    const event = toApiGatewayEvent(rawRequest({ body }), OPTIONS);

    // Assess
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).toBe(body.toString('base64'));
    expect(bodyBytes(event).equals(body)).toBe(true);
  });

  it('gives a null body when the request has none', () => {
    // Act
    const event = toApiGatewayEvent(rawRequest({ method: 'GET', body: Buffer.alloc(0) }), OPTIONS);

    // Assess
    expect(event.body).toBeNull();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.httpMethod).toBe('GET');
  });

  it('keeps header casing, the last value in headers and every value in multiValueHeaders', () => {
    // Prepare
    const rawHeaders = [
      'Service-Signature',
      't=1,signature=aa',
      'X-Trace',
      'one',
      'X-Trace',
      'two',
      '__proto__',
      'plain',
    ];

    // Act
    const event = toApiGatewayEvent(rawRequest({ rawHeaders }), OPTIONS);

    // Assess
    expect(event.headers).toEqual({
      'Service-Signature': 't=1,signature=aa',
      'X-Trace': 'two',
      ['__proto__']: 'plain',
    });
    expect(Object.keys(event.headers)).toContain('__proto__');
    expect(event.multiValueHeaders).toEqual({
      'Service-Signature': ['t=1,signature=aa'],
      'X-Trace': ['one', 'two'],
      ['__proto__']: ['plain'],
    });
  });

  it('splits the query string into single and multi-value maps, and gives null without one', () => {
    // Act
    const withQuery = toApiGatewayEvent(rawRequest({ target: '/webhook?a=1&b=x&a=2' }), OPTIONS);
    const withoutQuery = toApiGatewayEvent(rawRequest(), OPTIONS);

    // Assess
    expect(withQuery.path).toBe('/webhook');
    expect(withQuery.queryStringParameters).toEqual({ a: '2', b: 'x' });
    expect(withQuery.multiValueQueryStringParameters).toEqual({ a: ['1', '2'], b: ['x'] });
    expect(withoutQuery.queryStringParameters).toBeNull();
    expect(withoutQuery.multiValueQueryStringParameters).toBeNull();
  });

  it('fills the request context API Gateway provides', () => {
    // Prepare
    const rawHeaders = ['host', 'localhost:3000', 'User-Agent', 'curl/8.0'];

    // Act
    const event = toApiGatewayEvent(rawRequest({ rawHeaders, sourceIp: '::1' }), OPTIONS);

    // Assess
    expect(event.resource).toBe('/webhook');
    expect(event.requestContext).toMatchObject({
      requestId: 'req-1',
      httpMethod: 'POST',
      path: '/webhook',
      resourcePath: '/webhook',
      stage: 'local',
      protocol: 'HTTP/1.1',
      domainName: 'localhost:3000',
      requestTimeEpoch: 1_428_582_896_000,
      requestTime: '09/Apr/2015:12:34:56 +0000',
      identity: { sourceIp: '::1', userAgent: 'curl/8.0' },
    });
  });
});

describe('Function: fromProxyResult', () => {
  it('merges single and multi-value headers and keeps a text body as UTF-8', () => {
    // Act
    const parts = fromProxyResult({
      statusCode: 503,
      headers: { 'content-type': 'application/json', 'retry-after': 30 },
      multiValueHeaders: { 'x-note': ['a', 'b'] },
      body: '{"error":"unavailable","detail":"é"}',
    });

    // Assess
    expect(parts.statusCode).toBe(503);
    expect(parts.headers).toEqual([
      ['content-type', 'application/json'],
      ['retry-after', '30'],
      ['x-note', 'a'],
      ['x-note', 'b'],
    ]);
    expect(parts.body.toString('utf8')).toBe('{"error":"unavailable","detail":"é"}');
  });

  it('decodes a base64 body', () => {
    // Act
    const parts = fromProxyResult({ statusCode: 200, body: 'AP8=', isBase64Encoded: true });

    // Assess
    expect([...parts.body]).toEqual([0x00, 0xff]);
  });
});
