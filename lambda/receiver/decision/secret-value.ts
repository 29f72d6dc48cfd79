/**
 * The one rule for reading a signing key out of a Secrets Manager value, shared by the receiver's
 * key loader and every tool that takes `--secret-id`, so they can never disagree on the key.
 */

/** Why a secret value holds no usable key. Field names are listed, never values. */
export type SecretKeyFailure =
  | { readonly reason: 'empty' }
  /** A JSON object without `SECRET_JSON_FIELD`, whose string fields are not exactly one. */
  | { readonly reason: 'ambiguous_fields'; readonly fields: readonly string[] }
  /** `SECRET_JSON_FIELD` names a field the object does not have, or one that is not text. */
  | {
      readonly reason: 'field_not_found' | 'field_not_string';
      readonly field: string;
      readonly fields: readonly string[];
    };

/** Outcome of {@link keyFromSecretValue}. */
export type SecretKeyResult =
  | { readonly ok: true; readonly key: string }
  | ({ readonly ok: false } & SecretKeyFailure);

/**
 * The signing key held by a `SecretString`:
 * - text that is not a JSON object is the key itself;
 * - a JSON object (what the Secrets Manager console's key/value form stores) holds the key in the
 *   field named `jsonField` (`SECRET_JSON_FIELD`), or, when none is named, in its only string
 *   field.
 * Surrounding whitespace is trimmed: keys pasted from a file often end in a newline.
 *
 * @param secretString - the value as stored
 * @param jsonField - `SECRET_JSON_FIELD`, when set
 */
export function keyFromSecretValue(
  secretString: string,
  jsonField?: string | undefined,
): SecretKeyResult {
  const object = jsonObject(secretString);
  if (object === undefined) return nonEmpty(secretString);
  const fields = Object.keys(object);
  if (jsonField !== undefined) {
    if (!Object.hasOwn(object, jsonField)) {
      return { ok: false, reason: 'field_not_found', field: jsonField, fields };
    }
    const value = object[jsonField];
    if (typeof value !== 'string') {
      return { ok: false, reason: 'field_not_string', field: jsonField, fields };
    }
    return nonEmpty(value);
  }
  const stringFields = fields.filter((field) => typeof object[field] === 'string');
  const only = stringFields.length === 1 ? object[stringFields[0] as string] : undefined;
  if (typeof only !== 'string') return { ok: false, reason: 'ambiguous_fields', fields };
  return nonEmpty(only);
}

/**
 * The same value with the key replaced, in the same shape: a JSON object keeps its other fields
 * and gets `key` in the field {@link keyFromSecretValue} reads; plain text becomes `key`.
 *
 * @param secretString - the current value
 * @param key - the new key
 * @param jsonField - `SECRET_JSON_FIELD`, when set
 */
export function replaceKeyInSecretValue(
  secretString: string,
  key: string,
  jsonField?: string | undefined,
):
  | { readonly ok: true; readonly secretString: string }
  | ({ readonly ok: false } & SecretKeyFailure) {
  const object = jsonObject(secretString);
  if (object === undefined) return { ok: true, secretString: key };
  const found = keyFromSecretValue(secretString, jsonField);
  if (!found.ok && found.reason !== 'empty') return found;
  const field =
    jsonField ?? Object.keys(object).find((name) => typeof object[name] === 'string') ?? '';
  return { ok: true, secretString: JSON.stringify({ ...object, [field]: key }) };
}

/**
 * What is wrong, for a log line or a tool's message: names the fields found (never a value) and
 * what to set.
 *
 * @param failure - from {@link keyFromSecretValue}
 */
export function describeSecretKeyFailure(failure: SecretKeyFailure): string {
  switch (failure.reason) {
    case 'empty':
      return 'the key is empty';
    case 'ambiguous_fields':
      return `the value is a JSON object with ${fieldList(failure.fields)} and not exactly one text field: set SECRET_JSON_FIELD to the field that holds the key`;
    case 'field_not_found':
      return `SECRET_JSON_FIELD is '${failure.field}' but the JSON object has ${fieldList(failure.fields)}: set SECRET_JSON_FIELD to the field that holds the key`;
    case 'field_not_string':
      return `SECRET_JSON_FIELD '${failure.field}' is not a text field of the JSON object (${fieldList(failure.fields)}): set SECRET_JSON_FIELD to the field that holds the key`;
  }
}

function fieldList(fields: readonly string[]): string {
  if (fields.length === 0) return 'no fields';
  return `fields ${fields.map((field) => JSON.stringify(field)).join(', ')}`;
}

function nonEmpty(text: string): SecretKeyResult {
  const key = text.trim();
  return key === '' ? { ok: false, reason: 'empty' } : { ok: true, key };
}

/** The value as a JSON object, or undefined when it is anything else (then it is the key). */
function jsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
