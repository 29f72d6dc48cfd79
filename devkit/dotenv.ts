import { randomBytes } from 'node:crypto';
import { appendFile, chmod, readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { LOCAL_KEY_VARIABLE } from '../lambda/contract/endpoints.js';

/** The `.env` file of the local run, relative to the working directory (`npm` runs scripts in the project root). */
export const DOTENV_FILE = '.env';

/**
 * Reads `KEY=value` pairs from a dotenv file (Node's own parser: comments, quotes, `export`-less
 * lines). A missing file is an empty set, not an error: a fresh clone has none.
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  return parseEnv(text) as Record<string, string>;
}

/**
 * Appends `NAME=value` to a dotenv file, starting on a new line if the file does not end with one,
 * and leaves the file readable by the owner only (it holds a key), also when it already existed
 * with wider permissions (`echo 'ENDPOINTS=eu,us' >> .env` creates it 0644). Existing lines are
 * left alone.
 */
export async function appendDotEnv(path: string, name: string, value: string): Promise<void> {
  const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await appendFile(path, `${separator}${name}=${value}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
}

/** Where the local signing key came from. */
export type WebhookSecretSource = 'environment' | 'dotenv' | 'generated';

/** A local signing key, the variable holding it and its origin (the caller prints a generated key once). */
export interface LocalWebhookSecret {
  readonly secret: string;
  /** `WEBHOOK_SECRET`, or an endpoint's `WEBHOOK_SECRET_<NAME>`. */
  readonly variable: string;
  readonly source: WebhookSecretSource;
}

/**
 * A key of the local run: `variable` from the environment, else from the dotenv file; a blank
 * value counts as unset. Surrounding whitespace is trimmed, as the receiver trims keys.
 *
 * @param variable - `WEBHOOK_SECRET` (default), or an endpoint's `WEBHOOK_SECRET_<NAME>`
 */
export async function findWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
  variable: string = LOCAL_KEY_VARIABLE,
): Promise<LocalWebhookSecret | undefined> {
  const fromEnv = env[variable]?.trim();
  if (fromEnv) return { secret: fromEnv, variable, source: 'environment' };
  const fromFile = (await readDotEnv(dotEnvPath))[variable]?.trim();
  if (fromFile) return { secret: fromFile, variable, source: 'dotenv' };
  return undefined;
}

/**
 * `env` with `WEBHOOK_SECRET` filled in from the dotenv file when the environment has none, so
 * every tool finds the key `npm start` saved, as `send` does.
 */
export async function withDotEnvWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
): Promise<NodeJS.ProcessEnv> {
  const found = await findWebhookSecret(env, dotEnvPath);
  return found?.source === 'dotenv' ? { ...env, [LOCAL_KEY_VARIABLE]: found.secret } : env;
}

/**
 * Like {@link findWebhookSecret}, but when no key is set anywhere, generates one (32 random bytes,
 * hex) and appends it to the dotenv file so the next start and the `send` tool use the same key.
 *
 * @param variable - `WEBHOOK_SECRET` (default), or an endpoint's `WEBHOOK_SECRET_<NAME>`
 */
export async function ensureWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
  variable: string = LOCAL_KEY_VARIABLE,
): Promise<LocalWebhookSecret> {
  const found = await findWebhookSecret(env, dotEnvPath, variable);
  if (found) return found;
  const secret = randomBytes(32).toString('hex');
  await appendDotEnv(dotEnvPath, variable, secret);
  return { secret, variable, source: 'generated' };
}
