/**
 * Where a receiver serving named endpoints finds each one's key: the map from endpoint name to
 * Secrets Manager secret (and JSON field) that `ENDPOINT_SECRET_IDS` and
 * `ENDPOINT_SECRET_JSON_FIELDS` hold, or that the endpoint directory the construct writes holds
 * when there are too many for Lambda's environment. The construct writes it, the receiver and the
 * tools read it, all with these rules. Pure: no AWS, no I/O.
 * @module
 */
import { ENDPOINT_NAME_RULE, isEndpointName } from './endpoints.js';
import { ConfigError, ENDPOINT_DIRECTORY_SECRET_ID } from './environment.js';

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
export function endpointKeySources(
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
