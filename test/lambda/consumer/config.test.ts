import { describe, expect, it } from 'vitest';
import { loadConsumerConfig } from '../../../lambda/consumer/config.js';
import { ConfigError } from '../../../lambda/contract/environment.js';

describe('Function: loadConsumerConfig', () => {
  it('turns duplicate suppression off when IDEMPOTENCY_TABLE is unset or empty', () => {
    // Act
    const unset = loadConsumerConfig({});
    const empty = loadConsumerConfig({ IDEMPOTENCY_TABLE: ' ' });

    // Assess
    expect(unset).toEqual({
      serviceName: 'webhook-consumer',
      metricsNamespace: 'ServiceWebhookReceiver',
      idempotency: undefined,
    });
    expect(empty.idempotency).toBeUndefined();
  });

  it('keeps records for 7 days unless IDEMPOTENCY_TTL_SECONDS says otherwise', () => {
    // Act
    const byDefault = loadConsumerConfig({ IDEMPOTENCY_TABLE: 'bookings-seen' });
    const custom = loadConsumerConfig({
      IDEMPOTENCY_TABLE: 'bookings-seen',
      IDEMPOTENCY_TTL_SECONDS: '86400',
    });

    // Assess
    expect(byDefault.idempotency).toEqual({ tableName: 'bookings-seen', ttlSeconds: 604_800 });
    expect(custom.idempotency).toEqual({ tableName: 'bookings-seen', ttlSeconds: 86_400 });
  });

  it.each(['0', '7d', '-1'])('rejects IDEMPOTENCY_TTL_SECONDS=%s naming the variable', (value) => {
    // Act
    const load = () =>
      loadConsumerConfig({ IDEMPOTENCY_TABLE: 'bookings-seen', IDEMPOTENCY_TTL_SECONDS: value });

    // Assess
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(
      `idempotencyTtl (IDEMPOTENCY_TTL_SECONDS), in seconds, must be a whole number of at least 1, got ${value}`,
    );
  });

  it('takes the service name and metrics namespace from the Powertools variables', () => {
    // Act
    const config = loadConsumerConfig({
      POWERTOOLS_SERVICE_NAME: 'bookings-consumer',
      POWERTOOLS_METRICS_NAMESPACE: 'Bookings',
    });

    // Assess
    expect(config).toMatchObject({
      serviceName: 'bookings-consumer',
      metricsNamespace: 'Bookings',
    });
  });
});
