import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../lambda/receiver/config.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-events';
const MINIMAL = { SECRET_ID: 'webhook/signing-key', QUEUE_URL };

describe('Function: loadConfig', () => {
  it('applies the documented defaults when only SECRET_ID and QUEUE_URL are set', () => {
    // Act
    const config = loadConfig(MINIMAL);

    // Assess
    expect(config).toEqual({
      keySource: { kind: 'secrets-manager', secretId: 'webhook/signing-key' },
      secretJsonField: undefined,
      queueUrl: QUEUE_URL,
      toleranceSeconds: 300,
      previousKeyGraceSeconds: 86_400,
      secretCacheSeconds: 300,
      forwardEvents: new Set(['event_booked']),
      maxBodyBytes: 262_144,
      serviceName: 'webhook-receiver',
      metricsNamespace: 'ServiceWebhookReceiver',
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
    expect(load).toThrow("MAX_BODY_BYTES must be at most 512000, got '1048576'");
  });

  it('uses a static, trimmed key when only WEBHOOK_SECRET is set (local runs)', () => {
    // Act
    const config = loadConfig({ WEBHOOK_SECRET: ' local-key\n', QUEUE_URL });

    // Assess
    expect(config.keySource).toEqual({ kind: 'static', key: 'local-key' });
  });

  it('treats empty variables as unset, as deploy tools often write them', () => {
    // Act
    const config = loadConfig({ ...MINIMAL, WEBHOOK_SECRET: '', MAX_BODY_BYTES: ' ' });

    // Assess
    expect(config.maxBodyBytes).toBe(262_144);
    expect(config.keySource.kind).toBe('secrets-manager');
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
    ['WEBHOOK_SECRET', { ...MINIMAL, WEBHOOK_SECRET: 'local-key' }],
  ])('throws a ConfigError naming %s when it is missing or invalid', (name, env) => {
    // Act
    const load = () => loadConfig(env);

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(name);
  });

  it('never repeats the WEBHOOK_SECRET value in an error', () => {
    // Act
    const load = () => loadConfig({ SECRET_ID: 'x', WEBHOOK_SECRET: 'super-secret-value' });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).not.toThrow('super-secret-value');
  });
});
