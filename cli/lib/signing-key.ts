import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ToolIo, UsageError } from './tool-io.js';

/** The environment variable a tool reads the signing key from. */
export const WEBHOOK_SECRET_VARIABLE = 'WEBHOOK_SECRET';

/** A signing key as a tool read it. */
export interface SigningKey {
  /** The key with surrounding whitespace removed: what is signed and verified with. */
  readonly key: string;
  /** The key exactly as read, kept so a tool can tell when whitespace around it matters. */
  readonly raw: string;
  /** Where it came from, for messages: `--secret-file` or `WEBHOOK_SECRET`. */
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
 * @throws {UsageError} when there is no key, the file cannot be read, or the key is blank. The
 *   file path is never echoed: users sometimes pass the key itself by mistake.
 */
export async function readSigningKey(
  secretFile: string | undefined,
  io: Pick<ToolIo, 'env' | 'cwd'>,
): Promise<SigningKey> {
  let raw: string;
  let source: string;
  if (secretFile === undefined) {
    const fromEnv = io.env[WEBHOOK_SECRET_VARIABLE];
    if (fromEnv === undefined) {
      throw new UsageError(
        `no key: set ${WEBHOOK_SECRET_VARIABLE} or pass --secret-file PATH (a key is never taken as an argument)`,
      );
    }
    raw = fromEnv;
    source = WEBHOOK_SECRET_VARIABLE;
  } else {
    try {
      raw = await readFile(resolve(io.cwd, secretFile), 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(
        `cannot read the --secret-file (${code}): give the path of a file holding the key`,
      );
    }
    source = '--secret-file';
  }
  const key = raw.trim();
  if (key === '') throw new UsageError(`the key in ${source} is empty`);
  return { key, raw, source };
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
      `${keyOption.split('=')[0]} is not accepted: a key on the command line leaks into shell history; set ${WEBHOOK_SECRET_VARIABLE} or use --secret-file`,
    );
  }
}
