import {
  ENDPOINT_NAME_RULE,
  isEndpointName,
  LOCAL_KEY_VARIABLE,
  splitList,
} from '../contract/endpoints.js';
import {
  checkWholeNumber,
  RECEIVER_SETTINGS,
  type WholeNumberSetting,
} from '../contract/settings.js';
import { WebhookReceiverError } from '../core/errors.js';
import type { ForwardEvents } from './decision/sink-message.js';
import { parseSourceAllowlist, type SourceAllowlist } from './source-allowlist.js';

/** Thrown at cold start when an environment variable is missing or invalid; names the variable. */
export class ConfigError extends WebhookReceiverError {}

/** Where the signing keys come from. */
export type KeySourceConfig =
  | {
      readonly kind: 'secrets-manager';
      readonly secretId: string;
      /** This secret's JSON field (`ENDPOINT_SECRET_JSON_FIELDS`), in place of `SECRET_JSON_FIELD`. */
      readonly jsonField?: string;
    }
  /** `WEBHOOK_SECRET`: one fixed key for local runs, no rotation. */
  | { readonly kind: 'static'; readonly key: string };

/** Which endpoints the receiver serves, and where each one's keys come from. */
export type EndpointsConfig =
  /** `SECRET_ID` or `WEBHOOK_SECRET`: one endpoint; the request path is not looked at. */
  | { readonly kind: 'single'; readonly keySource: KeySourceConfig }
  /**
   * `ENDPOINT_SECRET_IDS`: named endpoints, each served at `/webhook/<name>` with a key ring of
   * its own.
   */
  | { readonly kind: 'named'; readonly keySources: ReadonlyMap<string, KeySourceConfig> }
  /**
   * `ENDPOINT_DIRECTORY_SECRET_ID`: named endpoints as above, listed in a Secrets Manager secret
   * (the endpoint directory, {@link parseEndpointDirectory}) read on the first call, so that
   * their number is not bounded by Lambda's 4 KB of environment.
   */
  | { readonly kind: 'directory'; readonly secretId: string };

/** The receiver's validated configuration (see the README's configuration table). */
export interface ReceiverConfig {
  readonly endpoints: EndpointsConfig;
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
  /**
   * `ALLOWED_SOURCE_IPS`: the only source addresses let in (checked before the body is read or a
   * key loaded); `undefined` lets every source in.
   */
  readonly allowedSources: SourceAllowlist | undefined;
  /**
   * `ARCHIVE_STREAM`: the Firehose delivery stream that archives every answered call (see
   * `archive-record.ts`); `undefined` keeps no archive.
   */
  readonly archiveStream: string | undefined;
}

/** Environment as read by {@link loadConfig}; `process.env` in Lambda. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Defaults of the optional variables; part of the public interface documented in the README. */
export const CONFIG_DEFAULTS = {
  FORWARD_EVENTS: 'event_booked',
  POWERTOOLS_SERVICE_NAME: 'webhook-receiver',
  POWERTOOLS_METRICS_NAMESPACE: 'ServiceWebhookReceiver',
} as const;

/**
 * Reads and validates the receiver's configuration. Called once per cold start, so a
 * misconfigured function fails at init with a message naming the variable instead of answering
 * every webhook with an error.
 *
 * @param env - the environment to read, `process.env` by default
 * @param endpoints - the endpoints and their keys when the caller holds them already (the local
 *   run's `WEBHOOK_SECRET_<NAME>` keys); by default read from `SECRET_ID`, `WEBHOOK_SECRET` and
 *   `ENDPOINT_SECRET_IDS`
 * @throws {ConfigError} when a variable is missing or invalid
 */
export function loadConfig(
  env: Environment = process.env,
  endpoints: EndpointsConfig = endpointsFrom(env),
): ReceiverConfig {
  return {
    endpoints,
    secretJsonField: readVariable(env, 'SECRET_JSON_FIELD'),
    queueUrl: queueUrlFrom(env),
    toleranceSeconds: settingFrom(env, RECEIVER_SETTINGS.signatureToleranceSeconds),
    previousKeyGraceSeconds: settingFrom(env, RECEIVER_SETTINGS.previousKeyGraceSeconds),
    secretCacheSeconds: settingFrom(env, RECEIVER_SETTINGS.secretCacheSeconds),
    forwardEvents: forwardEventsFrom(env),
    maxBodyBytes: settingFrom(env, RECEIVER_SETTINGS.maxBodyBytes),
    serviceName:
      readVariable(env, 'POWERTOOLS_SERVICE_NAME') ?? CONFIG_DEFAULTS.POWERTOOLS_SERVICE_NAME,
    metricsNamespace:
      readVariable(env, 'POWERTOOLS_METRICS_NAMESPACE') ??
      CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
    allowedSources: allowedSourcesFrom(env),
    archiveStream: readVariable(env, ARCHIVE_STREAM),
  };
}

/** The variable naming the archive's Firehose delivery stream; unset keeps no archive. */
export const ARCHIVE_STREAM = 'ARCHIVE_STREAM';

/** The variable holding the source-address allowlist: comma-separated IPv4 and IPv6 CIDRs. */
export const ALLOWED_SOURCE_IPS = 'ALLOWED_SOURCE_IPS';

function allowedSourcesFrom(env: Environment): SourceAllowlist | undefined {
  const text = readVariable(env, ALLOWED_SOURCE_IPS);
  if (text === undefined) return undefined;
  const parsed = parseSourceAllowlist(splitList(text));
  if (!parsed.ok) {
    throw new ConfigError(`${ALLOWED_SOURCE_IPS} entry '${parsed.entry}' ${parsed.problem}`);
  }
  return parsed.allowlist;
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

function endpointsFrom(env: Environment): EndpointsConfig {
  const secretId = readVariable(env, 'SECRET_ID');
  const key = readVariable(env, LOCAL_KEY_VARIABLE);
  const endpointSecretIds = readVariable(env, 'ENDPOINT_SECRET_IDS');
  const directory = readVariable(env, ENDPOINT_DIRECTORY_SECRET_ID);
  // Two key settings at once is most likely one setting leaking into another deployment (a local
  // key, or the single endpoint's secret next to the named ones): refuse rather than guess.
  if (secretId !== undefined && key !== undefined) {
    throw new ConfigError(
      'SECRET_ID and WEBHOOK_SECRET are both set: set SECRET_ID in AWS, or WEBHOOK_SECRET for local runs, not both',
    );
  }
  const named = directory === undefined ? 'ENDPOINT_SECRET_IDS' : ENDPOINT_DIRECTORY_SECRET_ID;
  if (endpointSecretIds !== undefined || directory !== undefined) {
    const other =
      directory !== undefined && endpointSecretIds !== undefined
        ? 'ENDPOINT_SECRET_IDS'
        : secretId === undefined
          ? key === undefined
            ? undefined
            : LOCAL_KEY_VARIABLE
          : 'SECRET_ID';
    if (other !== undefined) {
      throw new ConfigError(
        other === 'ENDPOINT_SECRET_IDS'
          ? `ENDPOINT_SECRET_IDS and ${ENDPOINT_DIRECTORY_SECRET_ID} are both set: list the named endpoints in one of them`
          : `${other} and ${named} are both set: set ${other} for the single endpoint (/webhook), or ${named} for named endpoints (/webhook/<name>), not both`,
      );
    }
  }
  if (directory !== undefined) {
    if (readVariable(env, 'ENDPOINT_SECRET_JSON_FIELDS') !== undefined) {
      throw new ConfigError(
        `ENDPOINT_SECRET_JSON_FIELDS is set with ${ENDPOINT_DIRECTORY_SECRET_ID}: the directory holds the JSON fields`,
      );
    }
    return { kind: 'directory', secretId: directory };
  }
  if (endpointSecretIds !== undefined) {
    return {
      kind: 'named',
      keySources: endpointKeySources(
        { variable: 'ENDPOINT_SECRET_IDS', text: endpointSecretIds },
        readVariable(env, 'ENDPOINT_SECRET_JSON_FIELDS'),
      ),
    };
  }
  if (readVariable(env, 'ENDPOINT_SECRET_JSON_FIELDS') !== undefined) {
    throw new ConfigError('ENDPOINT_SECRET_JSON_FIELDS is set without ENDPOINT_SECRET_IDS');
  }
  if (secretId !== undefined)
    return { kind: 'single', keySource: { kind: 'secrets-manager', secretId } };
  if (key !== undefined) return { kind: 'single', keySource: { kind: 'static', key } };
  throw new ConfigError(
    'SECRET_ID is required (Secrets Manager name or ARN of the signing key); for several endpoints set ENDPOINT_SECRET_IDS, for local runs WEBHOOK_SECRET instead',
  );
}

/**
 * The content of the endpoint directory ({@link ENDPOINT_DIRECTORY_SECRET_ID}): the JSON object
 * `{ "secretIds": { <name>: <secret ARN> }, "jsonFields"?: { <name>: <field> } }`, the two maps
 * `ENDPOINT_SECRET_IDS` and `ENDPOINT_SECRET_JSON_FIELDS` hold when set as variables.
 */
export interface EndpointDirectory {
  readonly secretIds: Readonly<Record<string, string>>;
  readonly jsonFields?: Readonly<Record<string, string>>;
}

/**
 * Reads the endpoint directory's `SecretString` with the rules of `ENDPOINT_SECRET_IDS` and
 * `ENDPOINT_SECRET_JSON_FIELDS`.
 *
 * @param text - the directory secret's value
 * @throws {ConfigError} naming the directory and what is wrong in it
 */
export function parseEndpointDirectory(text: string): ReadonlyMap<string, KeySourceConfig> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const { secretIds, jsonFields } = (value ?? {}) as Partial<
    Record<keyof EndpointDirectory, unknown>
  >;
  const variable = `the endpoint directory (${ENDPOINT_DIRECTORY_SECRET_ID})`;
  return endpointKeySources(
    { variable: `${variable} secretIds`, text: JSON.stringify(secretIds ?? null) },
    jsonFields === undefined ? undefined : JSON.stringify(jsonFields),
    `${variable} jsonFields`,
  );
}

/**
 * Endpoint name -> Secrets Manager name or ARN (`ENDPOINT_SECRET_IDS`, or the directory's
 * `secretIds`) with each endpoint's JSON field (`ENDPOINT_SECRET_JSON_FIELDS`, or `jsonFields`),
 * if any.
 */
function endpointKeySources(
  secretIdsSetting: { readonly variable: string; readonly text: string },
  fieldsText: string | undefined,
  fieldsVariable = 'ENDPOINT_SECRET_JSON_FIELDS',
): ReadonlyMap<string, KeySourceConfig> {
  const { variable, text: secretIdsText } = secretIdsSetting;
  const secretIds = textMapFrom(variable, secretIdsText, 'secret id');
  if (secretIds.size === 0) {
    throw new ConfigError(`${variable} must name at least one endpoint, got '${secretIdsText}'`);
  }
  const jsonFields =
    fieldsText === undefined
      ? new Map<string, string>()
      : textMapFrom(fieldsVariable, fieldsText, 'JSON field');
  for (const name of jsonFields.keys()) {
    if (!secretIds.has(name)) {
      throw new ConfigError(
        `${fieldsVariable} names endpoint '${name}', which ${variable} does not`,
      );
    }
  }
  return new Map(
    [...secretIds].map(([name, secretId]) => {
      const jsonField = jsonFields.get(name);
      const source: KeySourceConfig =
        jsonField === undefined
          ? { kind: 'secrets-manager', secretId }
          : { kind: 'secrets-manager', secretId, jsonField };
      return [name, source];
    }),
  );
}

/**
 * Parses a variable holding a JSON object from endpoint name to a non-empty text (trimmed).
 *
 * @param variable - the variable's name, for messages
 * @param text - its trimmed value
 * @param valueName - what each value is, for messages
 * @throws {ConfigError} naming the variable and the endpoint at fault
 */
function textMapFrom(variable: string, text: string, valueName: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `${variable} must be a JSON object from endpoint name to ${valueName}, got '${text}'`,
    );
  }
  const map = new Map<string, string>();
  for (const [name, entry] of Object.entries(value)) {
    if (!isEndpointName(name)) {
      throw new ConfigError(`${variable}: endpoint name '${name}' must be ${ENDPOINT_NAME_RULE}`);
    }
    const trimmed = typeof entry === 'string' ? entry.trim() : '';
    if (trimmed === '') {
      throw new ConfigError(
        `${variable}: the ${valueName} of endpoint '${name}' must be non-empty text`,
      );
    }
    map.set(name, trimmed);
  }
  return map;
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
 * A whole-number setting from its variable, or its default when unset.
 *
 * @throws {ConfigError} with the setting's own message when the value is out of its range
 */
function settingFrom(env: Environment, setting: WholeNumberSetting): number {
  const text = readVariable(env, setting.variable);
  if (text === undefined) return setting.default;
  const checked = checkWholeNumber(setting, text);
  if (!checked.ok) throw new ConfigError(checked.message);
  return checked.value;
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
  const names = splitList(text);
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
  if (names.includes('')) {
    return { ok: false, problem: 'must not have an empty entry' };
  }
  return { ok: true, forwardEvents: new Set(names) };
}
