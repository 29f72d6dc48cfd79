import { WebhookReceiverError } from '../core/errors.js';
import type { ForwardEvents } from '../core/sink-message.js';

/** Thrown at cold start when an environment variable is missing or invalid; names the variable. */
export class ConfigError extends WebhookReceiverError {}

/** Where the signing keys come from. */
export type KeySourceConfig =
  | { readonly kind: 'secrets-manager'; readonly secretId: string }
  /** `WEBHOOK_SECRET`: one fixed key for local runs, no rotation. */
  | { readonly kind: 'static'; readonly key: string };

/** The receiver's validated configuration (see the README's configuration table). */
export interface ReceiverConfig {
  readonly keySource: KeySourceConfig;
  /** `SECRET_JSON_FIELD`: the field of a JSON secret that holds the key; unset reads the only text field. */
  readonly secretJsonField: string | undefined;
  readonly queueUrl: string;
  readonly toleranceSeconds: number;
  readonly previousKeyGraceSeconds: number;
  readonly secretCacheSeconds: number;
  readonly forwardEvents: ForwardEvents;
  readonly maxBodyBytes: number;
  readonly serviceName: string;
  readonly metricsNamespace: string;
}

/** Environment as read by {@link loadConfig}; `process.env` in Lambda. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Defaults of the optional variables; part of the public interface documented in the README. */
export const CONFIG_DEFAULTS = {
  SIGNATURE_TOLERANCE_SECONDS: 300,
  PREVIOUS_KEY_GRACE_SECONDS: 86_400,
  SECRET_CACHE_SECONDS: 300,
  FORWARD_EVENTS: 'event_booked',
  MAX_BODY_BYTES: 262_144,
  POWERTOOLS_SERVICE_NAME: 'webhook-receiver',
  POWERTOOLS_METRICS_NAMESPACE: 'ServiceWebhookReceiver',
} as const;

/**
 * Reads and validates the receiver's configuration. Called once per cold start, so a
 * misconfigured function fails at init with a message naming the variable instead of answering
 * every webhook with an error.
 *
 * @param env - the environment to read, `process.env` by default
 * @throws {ConfigError} when a variable is missing or invalid
 */
export function loadConfig(env: Environment = process.env): ReceiverConfig {
  return {
    keySource: keySourceFrom(env),
    secretJsonField: readVariable(env, 'SECRET_JSON_FIELD'),
    queueUrl: queueUrlFrom(env),
    toleranceSeconds: integerFrom(env, 'SIGNATURE_TOLERANCE_SECONDS', 1),
    previousKeyGraceSeconds: integerFrom(env, 'PREVIOUS_KEY_GRACE_SECONDS', 0),
    secretCacheSeconds: integerFrom(env, 'SECRET_CACHE_SECONDS', 0),
    forwardEvents: forwardEventsFrom(env),
    maxBodyBytes: integerFrom(env, 'MAX_BODY_BYTES', 1, MAX_BODY_BYTES_LIMIT),
    serviceName:
      readVariable(env, 'POWERTOOLS_SERVICE_NAME') ?? CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME,
    metricsNamespace:
      readVariable(env, 'POWERTOOLS_METRICS_NAMESPACE') ??
      CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
  };
}

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

function keySourceFrom(env: Environment): KeySourceConfig {
  const secretId = readVariable(env, 'SECRET_ID');
  const key = readVariable(env, 'WEBHOOK_SECRET');
  // Both set is most likely a local setting leaking into a deployment: refuse rather than guess.
  if (secretId !== undefined && key !== undefined) {
    throw new ConfigError(
      'SECRET_ID and WEBHOOK_SECRET are both set: set SECRET_ID in AWS, or WEBHOOK_SECRET for local runs, not both',
    );
  }
  if (secretId !== undefined) return { kind: 'secrets-manager', secretId };
  if (key !== undefined) return { kind: 'static', key };
  throw new ConfigError(
    'SECRET_ID is required (Secrets Manager name or ARN of the signing key); for local runs set WEBHOOK_SECRET instead',
  );
}

function queueUrlFrom(env: Environment): string {
  const queueUrl = readVariable(env, 'QUEUE_URL');
  if (queueUrl === undefined) throw new ConfigError('QUEUE_URL is required (the SQS queue URL)');
  if (!URL.canParse(queueUrl) || !/^https?:$/.test(new URL(queueUrl).protocol)) {
    throw new ConfigError(`QUEUE_URL must be an http(s) SQS queue URL, got '${queueUrl}'`);
  }
  return queueUrl;
}

/**
 * Largest `MAX_BODY_BYTES`. SQS takes at most 1 MiB (1,048,576 bytes) per message, counting the
 * body and every attribute's name, type and value. The body goes to the queue unchanged, with
 * attributes that copy the payload's `event`, `event_at` and `source` (so together never longer
 * than the body) plus `signature_timestamp` and `dedup_key` (under 200 bytes with all names and
 * types). A body of at most 512,000 bytes therefore always fits, however a signed payload spreads
 * its text over those fields; above that a large signed call could fail SendMessage on every
 * retry, a 503 the sender can never get past.
 */
const MAX_BODY_BYTES_LIMIT = 512_000;

type IntegerVariable = keyof typeof CONFIG_DEFAULTS &
  (
    | 'SIGNATURE_TOLERANCE_SECONDS'
    | 'PREVIOUS_KEY_GRACE_SECONDS'
    | 'SECRET_CACHE_SECONDS'
    | 'MAX_BODY_BYTES'
  );

function integerFrom(
  env: Environment,
  name: IntegerVariable,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number {
  const text = readVariable(env, name);
  return text === undefined
    ? CONFIG_DEFAULTS[name]
    : parseWholeNumber(name, text, minimum, maximum);
}

/**
 * Parses a variable's text as a whole number within bounds.
 *
 * @param name - the variable's name, for the message
 * @param text - its trimmed value
 * @param minimum - the smallest value accepted
 * @param maximum - the largest value accepted
 * @throws {ConfigError} naming the variable when the text is not a whole number in range
 */
export function parseWholeNumber(
  name: string,
  text: string,
  minimum: number,
  maximum = Number.MAX_SAFE_INTEGER,
): number {
  const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum)) {
    throw new ConfigError(`${name} must be a whole number >= ${minimum}, got '${text}'`);
  }
  if (value > maximum) {
    throw new ConfigError(`${name} must be at most ${maximum}, got '${text}'`);
  }
  return value;
}

function forwardEventsFrom(env: Environment): ForwardEvents {
  const text = readVariable(env, 'FORWARD_EVENTS') ?? CONFIG_DEFAULTS.FORWARD_EVENTS;
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const checked = checkForwardEvents(names);
  if (!checked.ok) throw new ConfigError(`FORWARD_EVENTS ${checked.problem}, got '${text}'`);
  return checked.forwardEvents;
}

/** Result of {@link checkForwardEvents}: the events to forward, or what is wrong with the list. */
export type ForwardEventsCheck =
  | { readonly ok: true; readonly forwardEvents: ForwardEvents }
  | { readonly ok: false; readonly problem: string };

/**
 * The rule for the list of events to forward: `*` alone, or at least one event name. Shared by
 * `FORWARD_EVENTS` and the CDK construct's `forwardEvents` prop, so a stack cannot deploy a list
 * that its receiver refuses at every cold start.
 *
 * @param names - the event names, trimmed, none empty
 * @returns the events to forward, or a `problem` to put after the setting's name
 */
export function checkForwardEvents(names: readonly string[]): ForwardEventsCheck {
  if (names.includes('*')) {
    return names.length === 1
      ? { ok: true, forwardEvents: '*' }
      : { ok: false, problem: "must be '*' alone or a list of event names" };
  }
  if (names.length === 0) {
    return { ok: false, problem: "must name at least one event (or '*')" };
  }
  return { ok: true, forwardEvents: new Set(names) };
}
