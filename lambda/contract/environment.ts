/**
 * The environment the receiver and the example consumer read: how a variable is read, the names
 * the construct writes and `npm start` sets, their defaults, and the error a bad value raises.
 * Pure: no AWS, no I/O.
 * @module
 */
import { WebhookReceiverError } from '../core/errors.js';
import { METRICS_NAMESPACE } from './metric-names.js';
import { checkSetting, type SettingRow, type SettingValue } from './setting-kinds.js';

/** Thrown at cold start when an environment variable is missing or invalid; names the variable. */
export class ConfigError extends WebhookReceiverError {}

/** Environment as the functions read it; `process.env` in Lambda. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * A variable's trimmed value; empty counts as unset because deploy tools often write `""`.
 *
 * @param env - the environment to read
 * @param name - the variable's name
 */
export function readVariable(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * The variables the construct writes, `npm start` sets and the functions read, beyond the
 * settings table's (whose rows name their own) and those named below.
 */
export const VARIABLES = {
  /** The single endpoint's secret (name or ARN). */
  secretId: 'SECRET_ID',
  /** The queue verified events are sent to. */
  queueUrl: 'QUEUE_URL',
  /** Named endpoints: a JSON object from endpoint name to secret. */
  endpointSecretIds: 'ENDPOINT_SECRET_IDS',
  /** Named endpoints: a JSON object from endpoint name to the JSON field of its key. */
  endpointSecretJsonFields: 'ENDPOINT_SECRET_JSON_FIELDS',
  /** Powertools' service name: the log `service` field and metric dimension. */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** Powertools' metric namespace. */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** The example consumer's idempotency table; unset, every delivery is processed. */
  idempotencyTable: 'IDEMPOTENCY_TABLE',
} as const;

/** Defaults of the receiver's optional variables; part of the public interface documented in the README. */
export const CONFIG_DEFAULTS = {
  FORWARD_EVENTS: 'event_booked',
  POWERTOOLS_SERVICE_NAME: 'webhook-receiver',
  POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
} as const;

/** Defaults of the consumer's optional variables; part of the public interface. */
export const CONSUMER_CONFIG_DEFAULTS = {
  POWERTOOLS_SERVICE_NAME: 'webhook-consumer',
  /**
   * Seven days. The spec does not say how long the service retries a delivery; a week outlasts
   * any retry schedule we expect, and a record costs only its storage until DynamoDB's TTL
   * removes it, so a generous window is cheap.
   */
  IDEMPOTENCY_TTL_SECONDS: 7 * 24 * 60 * 60,
} as const;

/** The variable naming the archive's Firehose delivery stream; unset keeps no archive. */
export const ARCHIVE_STREAM = 'ARCHIVE_STREAM';

/** The variable holding the source-address allowlist: comma-separated IPv4 and IPv6 CIDRs. */
export const ALLOWED_SOURCE_IPS = 'ALLOWED_SOURCE_IPS';

/**
 * The variable naming the endpoint directory: the Secrets Manager secret (name or ARN) listing the
 * named endpoints and their secrets, which the construct writes in place of `ENDPOINT_SECRET_IDS`.
 */
export const ENDPOINT_DIRECTORY_SECRET_ID = 'ENDPOINT_DIRECTORY_SECRET_ID';

/**
 * A digest of the directory's content the construct sets beside
 * {@link ENDPOINT_DIRECTORY_SECRET_ID}. The receiver does not read it: a deploy that changes the
 * directory changes this variable, so Lambda starts new environments, which read the new directory
 * (one already running keeps the directory it read).
 */
export const ENDPOINT_DIRECTORY_VERSION = 'ENDPOINT_DIRECTORY_VERSION';

/** A setting's value as read from its variable: its default when unset and it has one. */
export type ReadSetting<Row extends SettingRow> = Row extends { readonly default: unknown }
  ? SettingValue<Row>
  : SettingValue<Row> | undefined;

/**
 * A setting from its row's environment variable, checked with the row's rule; unset (or empty, as
 * deploy tools often write it), its default or `undefined`.
 *
 * @param env - the environment to read
 * @param row - the setting's row, which names its variable
 * @throws {ConfigError} with the setting's message when the value breaks its rule
 */
export function readSetting<Row extends SettingRow & { readonly variable: string }>(
  env: Environment,
  row: Row,
): ReadSetting<Row> {
  const text = readVariable(env, row.variable);
  if (text === undefined) return row.default as ReadSetting<Row>;
  const checked = checkSetting(row, text);
  if (!checked.ok) throw new ConfigError(checked.message);
  return checked.value as ReadSetting<Row>;
}
