import { randomBytes } from 'node:crypto';
import { appendFile, chmod, readFile } from 'node:fs/promises';
import { LOCAL_KEY_VARIABLE } from '../lambda/contract/endpoints.js';
import { describeReadError, readFileUpTo } from './bounded-read.js';
import { EXIT_STATUS, ToolError } from './exit-status.js';

/** The `.env` file of the local run, relative to the working directory (`npm` runs scripts in the project root). */
export const DOTENV_FILE = '.env';

/** One variable of a dotenv file: its value, and the line that sets it (for messages). */
export interface DotEnvVariable {
  readonly value: string;
  readonly line: number;
}

/** What {@link parseDotEnv} read: every variable, or the first line it cannot read and why. */
export type DotEnvParse =
  | { readonly ok: true; readonly variables: ReadonlyMap<string, DotEnvVariable> }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** A name a shell, Node's `--env-file` and every dotenv reader agree on. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `NAME=` with an optional `export ` before it; the rest of the line is the value. */
const ASSIGNMENT = /^\s*(?:export\s+)?([^=]*?)\s*=(.*)$/;

/** The escapes a double-quoted value may hold. */
const DOUBLE_QUOTED_ESCAPES: Readonly<Record<string, string>> = { n: '\n', '"': '"', '\\': '\\' };

/**
 * Parses a dotenv file strictly: every line is blank, a comment (`#` first), or `NAME=value` with
 * an optional `export ` before it. A value is unquoted (trimmed; a `#` after whitespace starts a
 * comment), in single quotes or backticks (taken as is) or in double quotes (`\n`, `\"` and `\\`
 * escapes), on one line. Anything else is refused with its line number and the reason, never a
 * value: a lenient reader (Node's `util.parseEnv`) skips a line without `=` together with the next
 * variable, and cuts a key at a `#`, so a tool would sign with no key or with part of one.
 *
 * @param text - the file's text
 */
export function parseDotEnv(text: string): DotEnvParse {
  const variables = new Map<string, DotEnvVariable>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [index, content] of lines.entries()) {
    const line = index + 1;
    const trimmed = content.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const refuse = (reason: string): DotEnvParse => ({ ok: false, line, reason });
    const assignment = ASSIGNMENT.exec(content);
    if (assignment === null) {
      return refuse("no '=': each line must be NAME=value, a # comment or blank");
    }
    const [, name = '', rawValue = ''] = assignment;
    if (!VARIABLE_NAME.test(name)) {
      return refuse(
        'the name before = is not a variable name (letters, digits and _, not starting with a digit)',
      );
    }
    const earlier = variables.get(name);
    if (earlier !== undefined) {
      return refuse(`${name} is set again (first on line ${earlier.line}): keep one of the two`);
    }
    const value = parseValue(rawValue);
    if (!value.ok) return refuse(value.reason);
    variables.set(name, { value: value.value, line });
  }
  return { ok: true, variables };
}

/** The value after `=`, or why it cannot be read. */
function parseValue(
  raw: string,
): { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string } {
  const text = raw.trimStart();
  const quote = text[0];
  if (quote === '"' || quote === "'" || quote === '`') {
    let value = '';
    for (let at = 1; at < text.length; at++) {
      const char = text[at] ?? '';
      if (char === quote) {
        const rest = text.slice(at + 1).trim();
        if (rest !== '' && !rest.startsWith('#')) {
          return { ok: false, reason: `text after the closing ${quote}: quote the whole value` };
        }
        return { ok: true, value };
      }
      if (quote === '"' && char === '\\') {
        const escaped = DOUBLE_QUOTED_ESCAPES[text[at + 1] ?? ''];
        if (escaped === undefined) {
          return {
            ok: false,
            reason:
              'a \\ in double quotes must be \\n, \\" or \\\\ (use single quotes for a literal \\)',
          };
        }
        value += escaped;
        at++;
      } else {
        value += char;
      }
    }
    return {
      ok: false,
      reason: `unterminated ${quote}: a quoted value must end on the same line`,
    };
  }
  // `NAME=value # note` is a comment after whitespace; a `#` inside the value (or right after
  // the =) is refused, as other readers would cut the value there and sign with part of a key.
  const value = raw.replace(/\s+#.*$/, '').trim();
  if (value.includes('#')) {
    return {
      ok: false,
      reason:
        'a # inside an unquoted value (other .env readers cut it there): put the value in single quotes',
    };
  }
  return { ok: true, value };
}

/**
 * A dotenv file that cannot be read: which line and why, or why not at all (a directory, no
 * permission, too large); exit 3, as no key is known. Nothing is written to it while it is
 * unreadable, so a key it holds is never replaced by a new one.
 */
export class DotEnvError extends ToolError {
  /**
   * @param path - the file
   * @param line - the first line that cannot be read; `undefined` when the file cannot be read
   * @param reason - why, never a value from the file
   */
  constructor(path: string, line: number | undefined, reason: string) {
    super(
      `cannot read ${path}${line === undefined ? '' : `, line ${line}`}: ${reason}`,
      EXIT_STATUS.noKey,
    );
  }
}

/** The largest `.env` read: a few keys and settings take a few hundred bytes. */
export const DOTENV_MAX_BYTES = 1024 * 1024;

/**
 * Reads the variables of a dotenv file with {@link parseDotEnv}. A missing file is an empty set,
 * not an error: a fresh clone has none.
 *
 * @throws {DotEnvError} naming the line and the reason when a line cannot be read, or the reason
 *   when the file cannot be read (a directory, no permission, over {@link DOTENV_MAX_BYTES})
 */
export async function readDotEnvVariables(
  path: string,
): Promise<ReadonlyMap<string, DotEnvVariable>> {
  let bytes: Buffer | 'too-large';
  try {
    bytes = await readFileUpTo(path, DOTENV_MAX_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new DotEnvError(path, undefined, describeReadError(error));
  }
  if (bytes === 'too-large') {
    throw new DotEnvError(path, undefined, `it holds more than ${DOTENV_MAX_BYTES} bytes`);
  }
  const parsed = parseDotEnv(bytes.toString('utf8'));
  if (!parsed.ok) throw new DotEnvError(path, parsed.line, parsed.reason);
  return parsed.variables;
}

/**
 * The variables of a dotenv file as `name -> value`, read by {@link readDotEnvVariables}.
 *
 * @throws {DotEnvError} naming the line and the reason when a line cannot be read
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  const variables = await readDotEnvVariables(path);
  return Object.fromEntries([...variables].map(([name, { value }]) => [name, value]));
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
 * @throws {DotEnvError} when the dotenv file cannot be read (see {@link parseDotEnv})
 */
export async function findWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
  variable: string = LOCAL_KEY_VARIABLE,
): Promise<LocalWebhookSecret | undefined> {
  return (await lookUpWebhookSecret(env, dotEnvPath, variable)).found;
}

/** {@link findWebhookSecret}'s answer, and the dotenv line that sets the variable, blank or not. */
async function lookUpWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
  variable: string,
): Promise<{ readonly found?: LocalWebhookSecret; readonly dotEnvLine?: number }> {
  const fromEnv = env[variable]?.trim();
  if (fromEnv) return { found: { secret: fromEnv, variable, source: 'environment' } };
  const inFile = (await readDotEnvVariables(dotEnvPath)).get(variable);
  const fromFile = inFile?.value.trim();
  if (fromFile) return { found: { secret: fromFile, variable, source: 'dotenv' } };
  return inFile === undefined ? {} : { dotEnvLine: inFile.line };
}

/**
 * `env` with `WEBHOOK_SECRET` filled in from the dotenv file when the environment has none, so
 * every tool finds the key `npm start` saved, as `send` does.
 *
 * @throws {DotEnvError} when the dotenv file cannot be read
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
 * Never over a file that already names the variable (blank): the user meant to set that line.
 *
 * @param variable - `WEBHOOK_SECRET` (default), or an endpoint's `WEBHOOK_SECRET_<NAME>`
 * @throws {DotEnvError} when the dotenv file cannot be read, or sets `variable` to a blank value
 */
export async function ensureWebhookSecret(
  env: NodeJS.ProcessEnv,
  dotEnvPath: string,
  variable: string = LOCAL_KEY_VARIABLE,
): Promise<LocalWebhookSecret> {
  const { found, dotEnvLine } = await lookUpWebhookSecret(env, dotEnvPath, variable);
  if (found) return found;
  if (dotEnvLine !== undefined) {
    throw new DotEnvError(
      dotEnvPath,
      dotEnvLine,
      `${variable} is empty: put the key there, or delete the line to have a new key generated`,
    );
  }
  const secret = randomBytes(32).toString('hex');
  await appendDotEnv(dotEnvPath, variable, secret);
  return { secret, variable, source: 'generated' };
}
