import { describe, expect, it } from 'vitest';
import { parseEndpointDirectory } from '../../../lambda/contract/endpoint-directory.js';
import { ConfigError } from '../../../lambda/contract/environment.js';
import { type EndpointsConfig, loadConfig } from '../../../lambda/receiver/config.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-events';
const MINIMAL = { SECRET_ID: 'webhook/signing-key', QUEUE_URL };

describe('Function: loadConfig', () => {
  it('applies the documented defaults when only SECRET_ID and QUEUE_URL are set', () => {
    // Act
    const config = loadConfig(MINIMAL);

    // Assess
    expect(config).toEqual({
      endpoints: {
        kind: 'single',
        keySource: { kind: 'secrets-manager', secretId: 'webhook/signing-key' },
      },
      secretJsonField: undefined,
      queueUrl: QUEUE_URL,
      toleranceSeconds: 300,
      previousKeyGraceSeconds: 86_400,
      secretCacheSeconds: 3600,
      forwardEvents: new Set(['event_booked']),
      maxBodyBytes: 262_144,
      serviceName: 'webhook-receiver',
      metricsNamespace: 'ServiceWebhookReceiver',
      allowedSources: undefined,
      archiveStream: undefined,
    });
  });

  it('reads every variable when all are set', () => {
    // Act
    const config = loadConfig({
      ...MINIMAL,
      SIGNATURE_TOLERANCE_SECONDS: '120',
      PREVIOUS_KEY_GRACE_SECONDS: '0',
      SECRET_CACHE_SECONDS: '60',
      FORWARD_EVENTS: ' event_booked , event_cancelled ',
      MAX_BODY_BYTES: '65536',
      POWERTOOLS_SERVICE_NAME: 'bookings-in',
      POWERTOOLS_METRICS_NAMESPACE: 'Bookings',
      SECRET_JSON_FIELD: ' signing_key ',
    });

    // Assess
    expect(config).toMatchObject({
      secretJsonField: 'signing_key',
      toleranceSeconds: 120,
      previousKeyGraceSeconds: 0,
      secretCacheSeconds: 60,
      forwardEvents: new Set(['event_booked', 'event_cancelled']),
      maxBodyBytes: 65_536,
      serviceName: 'bookings-in',
      metricsNamespace: 'Bookings',
    });
  });

  it('forwards every event when FORWARD_EVENTS is *', () => {
    // Act
    const config = loadConfig({ ...MINIMAL, FORWARD_EVENTS: '*' });

    // Assess
    expect(config.forwardEvents).toBe('*');
  });

  it('accepts MAX_BODY_BYTES up to 512000, so the body and its attribute copies fit an SQS message', () => {
    // Act
    const config = loadConfig({ ...MINIMAL, MAX_BODY_BYTES: '512000' });

    // Assess
    expect(config.maxBodyBytes).toBe(512_000);
  });

  it('refuses a MAX_BODY_BYTES above what SQS accepts, naming the limit', () => {
    // Act
    const load = () => loadConfig({ ...MINIMAL, MAX_BODY_BYTES: '1048576' });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      'maxBodyBytes (MAX_BODY_BYTES) must be a whole number from 1 to 512000, got 1048576',
    );
  });

  it('uses a static, trimmed key when only WEBHOOK_SECRET is set (local runs)', () => {
    // Act
    const config = loadConfig({ WEBHOOK_SECRET: ' local-key\n', QUEUE_URL });

    // Assess
    expect(config.endpoints).toEqual({
      kind: 'single',
      keySource: { kind: 'static', key: 'local-key' },
    });
  });

  it('takes the endpoints given by the caller instead of reading key settings (the local run)', () => {
    // Prepare
    const endpoints: EndpointsConfig = {
      kind: 'named',
      keySources: new Map([['eu', { kind: 'static', key: 'eu-key' }]]),
    };

    // Act
    const config = loadConfig({ QUEUE_URL, MAX_BODY_BYTES: '1024' }, endpoints);

    // Assess
    expect(config.endpoints).toBe(endpoints);
    expect(config.maxBodyBytes).toBe(1024);
  });

  it('treats empty variables as unset, as deploy tools often write them', () => {
    // Act
    const config = loadConfig({ ...MINIMAL, WEBHOOK_SECRET: '', MAX_BODY_BYTES: ' ' });

    // Assess
    expect(config.maxBodyBytes).toBe(262_144);
    expect(config.endpoints).toMatchObject({ keySource: { kind: 'secrets-manager' } });
  });

  it.each([
    ['SECRET_ID', { QUEUE_URL }],
    ['QUEUE_URL', { SECRET_ID: 'x' }],
    ['QUEUE_URL', { ...MINIMAL, QUEUE_URL: 'webhook-events' }],
    ['QUEUE_URL', { ...MINIMAL, QUEUE_URL: 'ftp://example.com/q' }],
    ['SIGNATURE_TOLERANCE_SECONDS', { ...MINIMAL, SIGNATURE_TOLERANCE_SECONDS: '0' }],
    ['SIGNATURE_TOLERANCE_SECONDS', { ...MINIMAL, SIGNATURE_TOLERANCE_SECONDS: '5m' }],
    ['PREVIOUS_KEY_GRACE_SECONDS', { ...MINIMAL, PREVIOUS_KEY_GRACE_SECONDS: '-1' }],
    ['SECRET_CACHE_SECONDS', { ...MINIMAL, SECRET_CACHE_SECONDS: '1.5' }],
    ['MAX_BODY_BYTES', { ...MINIMAL, MAX_BODY_BYTES: '0' }],
    ['MAX_BODY_BYTES', { ...MINIMAL, MAX_BODY_BYTES: '256k' }],
    ['MAX_BODY_BYTES', { ...MINIMAL, MAX_BODY_BYTES: '512001' }],
    ['FORWARD_EVENTS', { ...MINIMAL, FORWARD_EVENTS: ' , ' }],
    ['FORWARD_EVENTS', { ...MINIMAL, FORWARD_EVENTS: '*,event_booked' }],
    ['FORWARD_EVENTS', { ...MINIMAL, FORWARD_EVENTS: 'event_booked,,event_cancelled' }],
    ['WEBHOOK_SECRET', { ...MINIMAL, WEBHOOK_SECRET: 'local-key' }],
  ])('throws a ConfigError naming %s when it is missing or invalid', (name, env) => {
    // Act
    const load = () => loadConfig(env);

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(name);
  });

  it('reads ALLOWED_SOURCE_IPS into the ranges the receiver lets in, IPv4 and IPv6', () => {
    // Act
    const config = loadConfig({
      ...MINIMAL,
      ALLOWED_SOURCE_IPS: ' 203.0.113.0/24 , 2001:db8::/32,198.51.100.7 ',
    });

    // Assess
    expect(config.allowedSources?.ranges).toEqual([
      '203.0.113.0/24',
      '2001:db8::/32',
      '198.51.100.7/32',
    ]);
    expect(config.allowedSources?.allows('203.0.113.200')).toBe(true);
    expect(config.allowedSources?.allows('2001:db8:ffff::1')).toBe(true);
    expect(config.allowedSources?.allows('198.51.100.8')).toBe(false);
  });

  it.each([
    [
      '203.0.113.0/33',
      'allowedSourceIps (ALLOWED_SOURCE_IPS) entry "203.0.113.0/33" has prefix /33',
    ],
    [
      '203.0.113.0/24,example.com',
      'allowedSourceIps (ALLOWED_SOURCE_IPS) entry "example.com" is not an IPv4 or IPv6',
    ],
    [
      '203.0.113.7/24',
      'allowedSourceIps (ALLOWED_SOURCE_IPS) entry "203.0.113.7/24" has bits set after its /24',
    ],
    ['203.0.113.0/24,', 'allowedSourceIps (ALLOWED_SOURCE_IPS) entry "" is empty'],
  ])('refuses ALLOWED_SOURCE_IPS=%s at cold start, naming the bad entry', (list, message) => {
    // Act
    const load = () => loadConfig({ ...MINIMAL, ALLOWED_SOURCE_IPS: list });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
  });

  it('never repeats the WEBHOOK_SECRET value in an error', () => {
    // Act
    const load = () => loadConfig({ SECRET_ID: 'x', WEBHOOK_SECRET: 'super-secret-value' });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).not.toThrow('super-secret-value');
  });

  describe('named endpoints', () => {
    const ENDPOINTS = {
      QUEUE_URL,
      ENDPOINT_SECRET_IDS: '{"eu":"webhook/eu","us-east-2":" arn:x "}',
    };

    it('reads ENDPOINT_SECRET_IDS into one trimmed secret id per endpoint', () => {
      // Act
      const config = loadConfig(ENDPOINTS);

      // Assess
      expect(config.endpoints).toEqual({
        kind: 'named',
        keySources: new Map([
          ['eu', { kind: 'secrets-manager', secretId: 'webhook/eu' }],
          ['us-east-2', { kind: 'secrets-manager', secretId: 'arn:x' }],
        ]),
      });
    });

    it('gives an endpoint the JSON field ENDPOINT_SECRET_JSON_FIELDS names for it', () => {
      // Act
      const config = loadConfig({
        ...ENDPOINTS,
        SECRET_JSON_FIELD: 'key',
        ENDPOINT_SECRET_JSON_FIELDS: '{"us-east-2":"signing_key"}',
      });

      // Assess
      expect(config.secretJsonField).toBe('key');
      expect(config.endpoints).toMatchObject({
        keySources: new Map([
          ['eu', { kind: 'secrets-manager', secretId: 'webhook/eu' }],
          ['us-east-2', { kind: 'secrets-manager', secretId: 'arn:x', jsonField: 'signing_key' }],
        ]),
      });
    });

    it.each([
      ['SECRET_ID', { SECRET_ID: 'webhook/signing-key' }],
      ['WEBHOOK_SECRET', { WEBHOOK_SECRET: 'local-key' }],
    ])('throws a ConfigError naming %s and ENDPOINT_SECRET_IDS when both are set', (name, env) => {
      // Act
      const load = () => loadConfig({ ...ENDPOINTS, ...env });

      // Assess
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(`${name} and ENDPOINT_SECRET_IDS are both set`);
      expect(load).not.toThrow('local-key');
    });

    it.each([
      [
        'not JSON',
        '{eu:webhook/eu}',
        'ENDPOINT_SECRET_IDS must be a JSON object from endpoint name to secret id',
      ],
      ['an array', '["webhook/eu"]', 'ENDPOINT_SECRET_IDS must be a JSON object'],
      ['an empty object', '{}', 'ENDPOINT_SECRET_IDS must name at least one endpoint'],
      [
        'an upper-case name',
        '{"EU":"webhook/eu"}',
        "endpoint name 'EU' must be 1 to 32 characters of lowercase letters, digits and -",
      ],
      ['a name with a dot', '{"eu.1":"webhook/eu"}', "endpoint name 'eu.1' must be"],
      [
        'a 33-character name',
        `{"${'a'.repeat(33)}":"x"}`,
        `endpoint name '${'a'.repeat(33)}' must be`,
      ],
      ['an empty secret id', '{"eu":" "}', "the secret id of endpoint 'eu' must be non-empty text"],
      [
        'a secret id that is not text',
        '{"eu":{"arn":"x"}}',
        "the secret id of endpoint 'eu' must be non-empty text",
      ],
    ])('throws a ConfigError when ENDPOINT_SECRET_IDS is %s', (_, value, message) => {
      // Act
      const load = () => loadConfig({ QUEUE_URL, ENDPOINT_SECRET_IDS: value });

      // Assess
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
    });

    it('accepts a 32-character name of letters, digits and hyphens', () => {
      // Prepare
      const name = `eu-west-1-${'a0'.repeat(11)}`;

      // Act
      const config = loadConfig({ QUEUE_URL, ENDPOINT_SECRET_IDS: `{"${name}":"x"}` });

      // Assess
      expect(name).toHaveLength(32);
      expect(config.endpoints).toMatchObject({ keySources: new Map([[name, expect.anything()]]) });
    });

    it.each([
      [
        'names an endpoint ENDPOINT_SECRET_IDS does not',
        { ...ENDPOINTS, ENDPOINT_SECRET_JSON_FIELDS: '{"us":"key"}' },
        "names endpoint 'us', which ENDPOINT_SECRET_IDS does not",
      ],
      [
        'is set without ENDPOINT_SECRET_IDS',
        { ...MINIMAL, ENDPOINT_SECRET_JSON_FIELDS: '{"eu":"key"}' },
        'ENDPOINT_SECRET_JSON_FIELDS is set without ENDPOINT_SECRET_IDS',
      ],
    ])('throws a ConfigError when ENDPOINT_SECRET_JSON_FIELDS %s', (_, env, message) => {
      // Act
      const load = () => loadConfig(env);

      // Assess
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
    });
  });
  describe('endpoint directory', () => {
    const DIRECTORY = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:Directory-AbC123';

    it('reads ENDPOINT_DIRECTORY_SECRET_ID, leaving the endpoints to the directory read on the first call', () => {
      // Act
      const config = loadConfig({
        QUEUE_URL,
        ENDPOINT_DIRECTORY_SECRET_ID: DIRECTORY,
        ENDPOINT_DIRECTORY_VERSION: '0123456789abcdef',
      });

      // Assess
      expect(config.endpoints).toEqual({ kind: 'directory', secretId: DIRECTORY });
    });

    it.each([
      [{ SECRET_ID: 'webhook/key' }, 'SECRET_ID and ENDPOINT_DIRECTORY_SECRET_ID are both set'],
      [
        { WEBHOOK_SECRET: 'local-key' },
        'WEBHOOK_SECRET and ENDPOINT_DIRECTORY_SECRET_ID are both set',
      ],
      [
        { ENDPOINT_SECRET_IDS: '{"eu":"x"}' },
        'ENDPOINT_SECRET_IDS and ENDPOINT_DIRECTORY_SECRET_ID are both set',
      ],
      [
        { ENDPOINT_SECRET_JSON_FIELDS: '{"eu":"key"}' },
        'ENDPOINT_SECRET_JSON_FIELDS is set with ENDPOINT_DIRECTORY_SECRET_ID',
      ],
    ])('throws a ConfigError when ENDPOINT_DIRECTORY_SECRET_ID comes with %j', (env, message) => {
      // Act
      const load = () => loadConfig({ QUEUE_URL, ENDPOINT_DIRECTORY_SECRET_ID: DIRECTORY, ...env });

      // Assess
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
      expect(load).not.toThrow('local-key');
    });

    it("reads the directory's secret ids and JSON fields with the rules of the variables", () => {
      // Act
      const sources = parseEndpointDirectory(
        JSON.stringify({ secretIds: { eu: 'arn:eu', us: 'arn:us' }, jsonFields: { us: 'key' } }),
      );

      // Assess
      expect(sources).toEqual(
        new Map([
          ['eu', { kind: 'secrets-manager', secretId: 'arn:eu' }],
          ['us', { kind: 'secrets-manager', secretId: 'arn:us', jsonField: 'key' }],
        ]),
      );
    });

    it.each([
      ['not JSON', 'that is not JSON', 'must be a JSON object from endpoint name to secret id'],
      ['{"secretIds":{}}', 'empty', 'must name at least one endpoint'],
      ['{"secretIds":{"EU":"x"}}', 'a bad name', "endpoint name 'EU' must be"],
      [
        '{"secretIds":{"eu":"x"},"jsonFields":{"us":"k"}}',
        'a field of no endpoint',
        "names endpoint 'us', which the endpoint directory (ENDPOINT_DIRECTORY_SECRET_ID) secretIds does not",
      ],
    ])('refuses a directory %s (%s), naming it', (text, _, message) => {
      // Act
      const parse = () => parseEndpointDirectory(text);

      // Assess
      expect(parse).toThrow(ConfigError);
      expect(parse).toThrow(message);
      expect(parse).toThrow('endpoint directory');
    });
  });
});
