import { resolve } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  endpointKeyVariable,
  isEndpointName,
  LOCAL_KEY_VARIABLE,
} from '../lambda/contract/endpoints.js';
import { SETTINGS } from '../lambda/contract/settings.js';
import {
  describeSecretKeyFailure,
  keyFromSecretValue,
} from '../lambda/receiver/decision/secret-value.js';
import { readFileUpTo } from './bounded-read.js';
import { DOTENV_FILE, findWebhookSecret, readDotEnv } from './dotenv.js';
import { EXIT_STATUS, NoKeyError, ToolError, UsageError } from './exit-status.js';
import { ENDPOINTS_VARIABLE, endpointsFrom } from './local-run.js';
import { withTimeout } from './network.js';
import type { ToolIo } from './tool-io.js';

/** The variable naming the field of a JSON secret that holds the key, as for the receiver. */
export const SECRET_JSON_FIELD_VARIABLE = SETTINGS.secretJsonField.variable;

/** A signing key as a tool read it. */
export interface SigningKey {
  /** The key with surrounding whitespace removed: what is signed and verified with. */
  readonly key: string;
  /** The key exactly as read, kept so a tool can tell when whitespace around it matters. */
  readonly raw: string;
  /**
   * Where it came from, for messages: `--secret-file`, `WEBHOOK_SECRET`, an endpoint's
   * `WEBHOOK_SECRET_<NAME>` or `--secret-id`.
   */
  readonly source: string;
}

/**
 * Reads the HMAC key for a command-line tool: from the file named by `--secret-file` when given
 * (an explicit option wins), else from `WEBHOOK_SECRET`. Never from an argument: a key typed on
 * the command line ends up in shell history and process listings. Surrounding whitespace is
 * trimmed, as keys pasted into files usually end with a newline.
 *
 * @param secretFile - the `--secret-file` value, relative to the user's directory
 * @param io - environment and working directory
 * @throws {NoKeyError} when there is no key, the file cannot be read, or the key is blank. The
 *   file path is never echoed: users sometimes pass the key itself by mistake.
 */
export async function readSigningKey(
  secretFile: string | undefined,
  io: Pick<ToolIo, 'env' | 'cwd'>,
): Promise<SigningKey> {
  if (secretFile === undefined) {
    const raw = io.env[LOCAL_KEY_VARIABLE];
    if (raw === undefined) {
      throw new NoKeyError(
        `no key: set ${LOCAL_KEY_VARIABLE} or pass --secret-file PATH (a key is never taken as an argument)`,
      );
    }
    return { key: trimmedKey(raw, LOCAL_KEY_VARIABLE), raw, source: LOCAL_KEY_VARIABLE };
  }
  const raw = await readKeyFile(resolve(io.cwd, secretFile), '--secret-file');
  return { key: keyFromFileText(raw, '--secret-file'), raw, source: '--secret-file' };
}

/**
 * The most a key file is read: the largest secret Secrets Manager stores (65,536 bytes), which
 * holds any key this project signs with; `/dev/zero` given as a key file ends there.
 */
export const KEY_FILE_MAX_BYTES = 65_536;

/**
 * The text of a key file, read up to {@link KEY_FILE_MAX_BYTES}.
 *
 * @param path - the file
 * @param name - how messages name it, e.g. `--secret-file`; never the path, which may be a key
 * @throws {NoKeyError} when it cannot be read or holds more
 */
export async function readKeyFile(path: string, name: string): Promise<string> {
  let bytes: Buffer | 'too-large';
  try {
    bytes = await readFileUpTo(path, KEY_FILE_MAX_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new NoKeyError(
      `cannot read the ${name} (${code}): give the path of a file holding the key`,
    );
  }
  if (bytes === 'too-large') {
    throw new NoKeyError(
      `the ${name} holds more than ${KEY_FILE_MAX_BYTES} bytes, more than any key: give the path of a file holding the key`,
    );
  }
  return bytes.toString('utf8');
}

/** A key's text with surrounding whitespace removed. @throws {NoKeyError} when nothing is left */
function trimmedKey(text: string, source: string): string {
  const key = text.trim();
  if (key === '') throw new NoKeyError(`the key in ${source} is empty`);
  return key;
}

/** A line of a `.env` file setting a key variable (`WEBHOOK_SECRET=…`, `WEBHOOK_SECRET_EU=…`). */
const KEY_VARIABLE_LINE = new RegExp(`^(export\\s+)?${LOCAL_KEY_VARIABLE}[A-Z0-9_]*\\s*=`);

/**
 * The key a key file holds: its text trimmed (keys pasted into files usually end with a newline).
 * Refuses a file that holds more than a key, which would otherwise be signed with, or stored by
 * `rotate-secret --put` so that the receiver refuses every genuine call: several lines, or one
 * `.env` line (`WEBHOOK_SECRET=…`). Nothing of the text is echoed.
 *
 * @param text - the file's text
 * @param source - how messages name the file
 * @throws {NoKeyError} when the file holds no key, or more than a key
 */
export function keyFromFileText(text: string, source: string): string {
  const key = trimmedKey(text, source);
  if (KEY_VARIABLE_LINE.test(key)) {
    throw new NoKeyError(
      `${source} holds a ${LOCAL_KEY_VARIABLE}=… line, not a key alone: put only the key in it, or use the .env itself (no --secret-file; --endpoint NAME for ${LOCAL_KEY_VARIABLE}_<NAME>)`,
    );
  }
  if (/[\r\n]/.test(key)) {
    throw new NoKeyError(
      `${source} holds several lines; a key file holds the key alone (a base64 key wrapped over lines? join them, as the service signs with the key as one string)`,
    );
  }
  return key;
}

/**
 * Rejects options that would carry a key on the command line, with a message saying where the
 * key goes instead (`util.parseArgs` would only say "unknown option").
 *
 * @param args - the arguments after `--`
 * @throws {UsageError} when `--secret`, `--key` or a spelling of them is present
 */
export function refuseKeyArguments(args: readonly string[]): void {
  const keyOption = args.find((arg) => /^--(secret|key|webhook-secret)(=|$)/.test(arg));
  if (keyOption !== undefined) {
    throw new UsageError(
      `${keyOption.split('=')[0]} is not accepted: a key on the command line leaks into shell history; set ${LOCAL_KEY_VARIABLE} or use --secret-file`,
    );
  }
}

/**
 * The local key of endpoint `name` (`--endpoint`): `WEBHOOK_SECRET_<NAME>` from the environment,
 * else from the `.env` that `npm start` writes, once `ENDPOINTS` (environment, else `.env`) is
 * found to list the endpoint. With `ENDPOINTS` set nowhere, the endpoint's key alone names it:
 * `ENDPOINTS=eu,us npm start` saves each endpoint's key to `.env`, and the banner's send
 * command then runs in a terminal without `ENDPOINTS`.
 *
 * @param name - the `--endpoint` value
 * @param io - environment and the project directory holding `.env`
 * @throws {UsageError} naming the endpoint when `ENDPOINTS` does not list it, or is set nowhere
 *   and the endpoint has no key
 * @throws {NoKeyError} when it has no key, or `.env` cannot be read
 */
export async function readEndpointKey(
  name: string,
  io: Pick<ToolIo, 'env' | 'projectDir'>,
): Promise<SigningKey> {
  const dotEnvPath = resolve(io.projectDir, DOTENV_FILE);
  const endpoints = endpointsFrom(io.env, await readDotEnv(dotEnvPath));
  const variable = isEndpointName(name) ? endpointKeyVariable(name) : undefined;
  if (endpoints === undefined && variable !== undefined) {
    const found = await findWebhookSecret(io.env, dotEnvPath, variable);
    if (found !== undefined) return { key: found.secret, raw: found.secret, source: variable };
  }
  if (variable === undefined || !endpoints?.includes(name)) {
    const known =
      endpoints === undefined
        ? `${ENDPOINTS_VARIABLE} is not set (in the environment or .env)`
        : `${ENDPOINTS_VARIABLE} lists ${endpoints.join(', ')}`;
    throw new UsageError(`unknown endpoint '${name}': ${known}`);
  }
  const found = await findWebhookSecret(io.env, dotEnvPath, variable);
  if (found === undefined) {
    throw new NoKeyError(
      `no key for endpoint '${name}': set ${variable}, or run npm start once with ${ENDPOINTS_VARIABLE} (it writes .env)`,
    );
  }
  return { key: found.secret, raw: found.secret, source: variable };
}

/**
 * Reads the key of the `AWSCURRENT` version of a Secrets Manager secret with the receiver's own
 * rule (`keyFromSecretValue`, honouring `SECRET_JSON_FIELD`), so a tool signs and verifies with
 * exactly the key the receiver uses. Messages name fields, never a value.
 *
 * @param secretId - the `--secret-id` value, name or ARN
 * @param io - environment (`SECRET_JSON_FIELD`; AWS settings come from the process) and how long
 *   the call may take
 * @param client - the Secrets Manager client to use
 * @throws {NoKeyError} when the secret holds no usable key
 * @throws {NetworkError} when Secrets Manager did not answer in time or could not be reached
 * @throws {ToolError} (exit 1) when Secrets Manager refused the call (no such secret, access denied)
 */
export async function readSecretIdKey(
  secretId: string,
  io: Pick<ToolIo, 'env' | 'networkTimeoutMs'>,
  client: SecretsManagerClient = new SecretsManagerClient({}),
): Promise<SigningKey> {
  const what = `Could not read ${secretId} from Secrets Manager`;
  let secretString: string | undefined;
  try {
    const secret = await withTimeout(what, io.networkTimeoutMs, (abortSignal) =>
      client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' }), {
        abortSignal,
      }),
    );
    secretString = secret.SecretString;
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(`${what}: ${(error as Error).message}`, EXIT_STATUS.refused, {
      cause: error,
    });
  }
  if (secretString === undefined) {
    throw new NoKeyError(
      `${secretId} holds only SecretBinary in its AWSCURRENT version: the key must be a SecretString`,
    );
  }
  const jsonField = io.env[SECRET_JSON_FIELD_VARIABLE]?.trim() || undefined;
  const read = keyFromSecretValue(secretString, jsonField);
  if (!read.ok) {
    throw new NoKeyError(`${secretId} (AWSCURRENT): ${describeSecretKeyFailure(read)}`);
  }
  return { key: read.key, raw: read.key, source: '--secret-id' };
}

/** The key a tool was told to use: read already, or a secret to read when the tool runs. */
export type KeyOption = SigningKey | { readonly secretId: string };

/**
 * The key options of `sign` and `verify` at parse time: `--secret-id` (read later, see
 * {@link resolveKeyOption}), else `--endpoint` ({@link readEndpointKey}), `--secret-file` or
 * `WEBHOOK_SECRET` (read now).
 *
 * @param values - the parsed `--secret-id`, `--secret-file` and `--endpoint`
 * @param io - environment, working directory and project directory
 * @throws {UsageError} when more than one is given, or as {@link readSigningKey} and
 *   {@link readEndpointKey}
 */
export async function keyOption(
  values: {
    readonly 'secret-id'?: string | undefined;
    readonly 'secret-file'?: string | undefined;
    readonly endpoint?: string | undefined;
  },
  io: Pick<ToolIo, 'env' | 'cwd' | 'projectDir'>,
): Promise<KeyOption> {
  const given = (['secret-id', 'secret-file', 'endpoint'] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (given.length > 1) {
    throw new UsageError(`give ${given.map((name) => `--${name}`).join(' or ')}, not both`);
  }
  const secretId = values['secret-id'];
  if (secretId !== undefined) return { secretId };
  if (values.endpoint !== undefined) return readEndpointKey(values.endpoint, io);
  return readSigningKey(values['secret-file'], io);
}

/**
 * The key of a {@link KeyOption}, reading the secret when it is one.
 *
 * @param option - from {@link keyOption}
 * @param io - environment and network timeout
 * @throws as {@link readSecretIdKey}
 */
export async function resolveKeyOption(
  option: KeyOption,
  io: Pick<ToolIo, 'env' | 'networkTimeoutMs'>,
): Promise<SigningKey> {
  return 'secretId' in option ? readSecretIdKey(option.secretId, io) : option;
}

/** The usage lines of the key options {@link keyOption} reads, shared by `sign` and `verify`. */
export const KEY_OPTIONS_USAGE = `  --secret-file PATH   read the key from this file instead of WEBHOOK_SECRET
  --secret-id ID       use the AWSCURRENT key of this Secrets Manager secret, read as the
                       receiver reads it (a JSON secret: its only text field, or SECRET_JSON_FIELD)
  --endpoint NAME      use the local key of endpoint NAME of npm start's ENDPOINTS:
                       WEBHOOK_SECRET_<NAME> (name upper-cased, - as _), else from .env`;

/** Where {@link keyOption} looks for the key, for the tools' usage text. */
export const KEY_SOURCES_USAGE = `The key comes from WEBHOOK_SECRET (else from the .env that npm start writes), --secret-file,
--secret-id or --endpoint, never from an argument; surrounding whitespace is trimmed, and a
--secret-file of several lines or a WEBHOOK_SECRET=... line is refused (exit 3).`;
