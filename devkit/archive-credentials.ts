/**
 * The credentials of the local archive's port: generated once per state folder by `npm start`,
 * kept in that folder readable by its user only, and read there by every tool that reads or
 * writes the archive. The port answers only requests signed with them (SigV4, as S3 requires),
 * so another user of the machine, who cannot enter the state folder, gets nothing from it.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoKeyError } from './exit-status.js';

/** The file of the state folder holding the archive port's credentials. */
export const ARCHIVE_CREDENTIALS_FILE = 'archive-credentials.json';

/** An access key of the local archive, in the shape the AWS SDK takes as `credentials`. */
export interface LocalArchiveCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** Readable and writable by its user only. */
const OWNER_ONLY = 0o600;

/**
 * The credentials the local archive of the state folder `stateDir` answers: what a tool, the
 * inspector or your own SDK code signs its requests to the archive port with.
 *
 * @param stateDir - the state folder of that `npm start` (its `LOCAL_STATE_DIR`, absolute or
 *   relative to the working directory)
 * @throws {NoKeyError} when the folder holds none that can be read (no `npm start` has run on it,
 *   or this user may not read it)
 */
export function localArchiveCredentials(stateDir: string): LocalArchiveCredentials {
  const path = join(stateDir, ARCHIVE_CREDENTIALS_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new NoKeyError(
      code === 'ENOENT'
        ? `no archive credentials in ${stateDir}: run npm start with LOCAL_STATE_DIR=${stateDir} once`
        : `cannot read the archive credentials in ${stateDir} (${code ?? 'error'})`,
      { cause: error },
    );
  }
  const credentials = parseCredentials(text);
  if (credentials === undefined) {
    throw new NoKeyError(
      `${path} does not hold archive credentials: delete it, and npm start writes new ones`,
    );
  }
  return credentials;
}

/**
 * The state folder's archive credentials, generated and written (mode 0600) when it has none;
 * an existing file is left readable by its user only. Called by `npm start` holding the folder.
 *
 * @param stateDir - the state folder (mode 0700, locked by this process)
 */
export function ensureLocalArchiveCredentials(stateDir: string): LocalArchiveCredentials {
  const path = join(stateDir, ARCHIVE_CREDENTIALS_FILE);
  const fresh: LocalArchiveCredentials = {
    accessKeyId: `LOCAL${randomBytes(10).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  try {
    writeFileSync(path, `${JSON.stringify(fresh, null, 2)}\n`, { mode: OWNER_ONLY, flag: 'wx' });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  chmodSync(path, OWNER_ONLY);
  const kept = parseCredentials(readFileSync(path, 'utf8'));
  if (kept !== undefined) return kept;
  writeFileSync(path, `${JSON.stringify(fresh, null, 2)}\n`, { mode: OWNER_ONLY });
  return fresh;
}

function parseCredentials(text: string): LocalArchiveCredentials | undefined {
  try {
    const { accessKeyId, secretAccessKey } = JSON.parse(text) as Record<string, unknown>;
    return typeof accessKeyId === 'string' &&
      accessKeyId !== '' &&
      typeof secretAccessKey === 'string' &&
      secretAccessKey !== ''
      ? { accessKeyId, secretAccessKey }
      : undefined;
  } catch {
    return undefined;
  }
}
