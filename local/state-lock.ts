/**
 * One `npm start` per state folder. Two processes on one queue journal lose acknowledged
 * messages (the second compacts the journal by renaming a new file over it, and the first goes on
 * writing to the unlinked one), so the folder carries a lock file naming its owner, checked for
 * liveness: a crash or SIGKILL leaves a file whose process is gone, and the next start takes over.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { WebhookReceiverError } from '../lambda/core/errors.js';
import { isRunning } from './parent-watch.js';

/** The lock file inside the state folder. */
export const STATE_LOCK_FILE = 'npm-start.lock';

/** Who holds a state folder: what the lock file records. */
export interface StateFolderOwner {
  readonly pid: number;
  /** The owner's webhook port (the port it was asked for until it listens). */
  readonly port: number;
  /** When the owner process started, as the system tells it; tells a reused pid apart. */
  readonly started?: string;
  /** This hold of the lock: the owner removes or rewrites the file only while it still names it. */
  readonly token: string;
}

/** Another `npm start` holds the state folder; nothing was changed. */
export class StateFolderBusyError extends WebhookReceiverError {
  /**
   * @param dir - the state folder
   * @param owner - the process holding it
   */
  constructor(
    readonly dir: string,
    readonly owner: StateFolderOwner,
  ) {
    super(`another npm start (pid ${owner.pid}, port ${owner.port}) is using ${dir}`);
  }
}

/** A held state folder. */
export interface StateFolderLock {
  /** Records the port the owner listens on, for the message a second start prints. */
  recordPort(port: number): void;
  /** Removes the lock file (when it still names this hold). */
  release(): void;
}

/** Mode of the state folder: its owner may list, read and write it; nobody else may enter it. */
const OWNER_ONLY = 0o700;

/**
 * Sets `dir` to {@link OWNER_ONLY}. A folder of another user's that this one may write to (a
 * shared group folder) keeps its mode: only its owner may change it, and refusing to start there
 * would protect nothing its owner did not choose to share.
 */
function keepToOwner(dir: string): void {
  try {
    chmodSync(dir, OWNER_ONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/** Enough for two starts racing over a stale file; more means the file keeps being replaced. */
const ATTEMPTS = 5;

/**
 * Takes the lock on `dir` for this process, or throws when a live process holds it. A lock file
 * whose process is gone, or whose pid now belongs to a process started at another time, is stale
 * and taken over. `dir` is created when missing, and left readable by this user only (mode 0700,
 * an existing folder included): the queue journal and the archive hold the bookings' personal
 * data, in files created with the usual 0644. Nothing else in `dir` is touched.
 *
 * @param dir - the state folder (`LOCAL_STATE_DIR`)
 * @param port - the webhook port asked for (0 until it is known)
 * @throws {StateFolderBusyError} when another live process holds `dir`
 */
export function lockStateFolder(dir: string, port: number): StateFolderLock {
  mkdirSync(dir, { recursive: true, mode: OWNER_ONLY });
  keepToOwner(dir);
  const path = join(dir, STATE_LOCK_FILE);
  const started = processStartTime(process.pid);
  let mine: StateFolderOwner = {
    pid: process.pid,
    port,
    ...(started === undefined ? {} : { started }),
    token: randomUUID(),
  };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusively(path, mine)) {
      return {
        recordPort: (bound) => {
          if (readOwner(path)?.owner?.token !== mine.token) return;
          mine = { ...mine, port: bound };
          replace(path, mine);
        },
        release: () => {
          if (readOwner(path)?.owner?.token === mine.token) rmSync(path, { force: true });
        },
      };
    }
    const found = readOwner(path);
    if (found === undefined) continue;
    if (found.owner !== undefined && isAlive(found.owner)) {
      throw new StateFolderBusyError(dir, found.owner);
    }
    removeIfUnchanged(path, found.text);
  }
  throw new WebhookReceiverError(
    `could not take ${path}: it changed ${ATTEMPTS} times while being read`,
  );
}

/**
 * Creates the lock file with its whole content at once: written aside, then hard-linked into
 * place, which fails when the file exists. A reader never sees a half-written lock.
 */
function createExclusively(path: string, owner: StateFolderOwner): boolean {
  const aside = `${path}.${owner.token}`;
  writeFileSync(aside, JSON.stringify(owner), { flag: 'wx' });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(aside);
  }
}

/** Rewrites the lock file in one step (its holder only). */
function replace(path: string, owner: StateFolderOwner): void {
  const aside = `${path}.${owner.token}`;
  writeFileSync(aside, JSON.stringify(owner));
  renameSync(aside, path);
}

/** The lock file's text and owner (`owner` unset when unreadable), or `undefined` when it is gone. */
function readOwner(
  path: string,
): { text: string; owner: StateFolderOwner | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { text, owner: parseOwner(text) };
}

function parseOwner(text: string): StateFolderOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<StateFolderOwner>;
    if (!Number.isInteger(value.pid) || !Number.isInteger(value.port)) return undefined;
    if (typeof value.token !== 'string') return undefined;
    return value as StateFolderOwner;
  } catch {
    return undefined;
  }
}

/** Whether the owner still runs: its pid is alive and, when both are known, started when recorded. */
function isAlive(owner: StateFolderOwner): boolean {
  if (!isRunning(owner.pid)) return false;
  const started = owner.started === undefined ? undefined : processStartTime(owner.pid);
  return started === undefined || started === owner.started;
}

/**
 * Removes a stale lock file, unless another start replaced it since it was read: it is moved
 * aside (one atomic step, which only one racer can make), and put back when what was moved is
 * not the stale text.
 */
function removeIfUnchanged(path: string, staleText: string): void {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, path);
  } catch (error) {
    // EEXIST: a third start holds the lock already; the one moved aside is then left to lapse.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * When process `pid` started, as an opaque text, or `undefined` when it cannot be told: Linux's
 * `/proc/<pid>/stat` start time (clock ticks since boot), elsewhere (macOS) `ps -o lstart`.
 */
function processStartTime(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Field 22; the fields after the command name (which may hold spaces) start at field 3.
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[22 - 3];
    } catch {
      return undefined;
    }
  }
  try {
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}
