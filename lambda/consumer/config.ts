import {
  CONFIG_DEFAULTS,
  CONSUMER_CONFIG_DEFAULTS,
  type Environment,
  readSetting,
  readVariable,
  VARIABLES,
} from '../contract/environment.js';
import { SETTINGS } from '../contract/settings.js';

/** Where and for how long the consumer remembers processed bookings. */
export interface IdempotencySettings {
  /** `IDEMPOTENCY_TABLE`: the DynamoDB table holding one record per processed booking. */
  readonly tableName: string;
  /** `IDEMPOTENCY_TTL_SECONDS`: how long a record suppresses copies of its booking. */
  readonly ttlSeconds: number;
}

/** The example consumer's validated configuration (see docs/consumer.md). */
export interface ConsumerConfig {
  readonly serviceName: string;
  readonly metricsNamespace: string;
  /** Undefined when `IDEMPOTENCY_TABLE` is unset: every delivery is processed, copies too. */
  readonly idempotency: IdempotencySettings | undefined;
}

/**
 * Reads and validates the consumer's configuration, once per cold start.
 *
 * @param env - the environment to read, `process.env` by default
 * @throws {ConfigError} when a variable is invalid
 */
export function loadConsumerConfig(env: Environment = process.env): ConsumerConfig {
  const tableName = readVariable(env, VARIABLES.idempotencyTable);
  return {
    serviceName:
      readVariable(env, VARIABLES.serviceName) ?? CONSUMER_CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME,
    // The receiver's namespace unless the deployment sets its own; the service name tells them apart.
    metricsNamespace:
      readVariable(env, VARIABLES.metricsNamespace) ?? CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
    idempotency:
      tableName === undefined
        ? undefined
        : { tableName, ttlSeconds: readSetting(env, SETTINGS.idempotencyTtl) },
  };
}
