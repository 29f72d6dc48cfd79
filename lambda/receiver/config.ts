import { endpointKeySources, type KeySourceConfig } from '../contract/endpoint-directory.js';
import { LOCAL_KEY_VARIABLE } from '../contract/endpoints.js';
import {
  ALLOWED_SOURCE_IPS,
  ARCHIVE_STREAM,
  CONFIG_DEFAULTS,
  ConfigError,
  ENDPOINT_DIRECTORY_SECRET_ID,
  type Environment,
  readSetting,
  readVariable,
  VARIABLES,
} from '../contract/environment.js';
import { type ForwardEvents, forwardEventsOf } from '../contract/forward-events.js';
import { SETTINGS } from '../contract/settings.js';
import { parseSourceAllowlist, type SourceAllowlist } from '../contract/source-allowlist.js';

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
    secretJsonField: readSetting(env, SETTINGS.secretJsonField),
    queueUrl: queueUrlFrom(env),
    toleranceSeconds: readSetting(env, SETTINGS.signatureToleranceSeconds),
    previousKeyGraceSeconds: readSetting(env, SETTINGS.previousKeyGraceSeconds),
    secretCacheSeconds: readSetting(env, SETTINGS.secretCacheSeconds),
    forwardEvents: forwardEventsOf(readSetting(env, SETTINGS.forwardEvents)),
    maxBodyBytes: readSetting(env, SETTINGS.maxBodyBytes),
    serviceName: readSetting(env, SETTINGS.serviceName),
    metricsNamespace:
      readVariable(env, VARIABLES.metricsNamespace) ?? CONFIG_DEFAULTS.POWERTOOLS_METRICS_NAMESPACE,
    allowedSources: allowedSourcesOf(readSetting(env, SETTINGS.allowedSourceIps)),
    archiveStream: readVariable(env, ARCHIVE_STREAM),
  };
}

function endpointsFrom(env: Environment): EndpointsConfig {
  const secretId = readVariable(env, VARIABLES.secretId);
  const key = readVariable(env, LOCAL_KEY_VARIABLE);
  const endpointSecretIds = readVariable(env, VARIABLES.endpointSecretIds);
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
    if (readVariable(env, VARIABLES.endpointSecretJsonFields) !== undefined) {
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
        readVariable(env, VARIABLES.endpointSecretJsonFields),
      ),
    };
  }
  if (readVariable(env, VARIABLES.endpointSecretJsonFields) !== undefined) {
    throw new ConfigError('ENDPOINT_SECRET_JSON_FIELDS is set without ENDPOINT_SECRET_IDS');
  }
  if (secretId !== undefined)
    return { kind: 'single', keySource: { kind: 'secrets-manager', secretId } };
  if (key !== undefined) return { kind: 'single', keySource: { kind: 'static', key } };
  throw new ConfigError(
    'SECRET_ID is required (Secrets Manager name or ARN of the signing key); for several endpoints set ENDPOINT_SECRET_IDS, for local runs WEBHOOK_SECRET instead',
  );
}

function queueUrlFrom(env: Environment): string {
  const queueUrl = readVariable(env, VARIABLES.queueUrl);
  if (queueUrl === undefined) throw new ConfigError('QUEUE_URL is required (the SQS queue URL)');
  if (!URL.canParse(queueUrl) || !/^https?:$/.test(new URL(queueUrl).protocol)) {
    throw new ConfigError(`QUEUE_URL must be an http(s) SQS queue URL, got '${queueUrl}'`);
  }
  return queueUrl;
}

/** The allowlist of ranges the setting's rule accepted; `undefined` lets every source in. */
function allowedSourcesOf(ranges: readonly string[] | undefined): SourceAllowlist | undefined {
  if (ranges === undefined) return undefined;
  const parsed = parseSourceAllowlist(ranges);
  // The setting's rule is this parser's: a list it accepted parses again.
  if (!parsed.ok)
    throw new ConfigError(`${ALLOWED_SOURCE_IPS} entry '${parsed.entry}' ${parsed.problem}`);
  return parsed.allowlist;
}
