import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockStateFolder, STATE_LOCK_FILE, StateFolderBusyError } from '../../local/state-lock.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('state-lock');

/** A folder of the test's own, holding a lock file with `owner` when given. */
function folder(name: string, owner?: object): string {
  const path = join(dir(), name);
  mkdirSync(path);
  if (owner !== undefined) writeFileSync(join(path, STATE_LOCK_FILE), JSON.stringify(owner));
  return path;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid;
}

function lockFile(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(path, STATE_LOCK_FILE), 'utf8')) as Record<string, unknown>;
}

describe('Function: lockStateFolder', () => {
  it('refuses a second hold of a folder while the first holds it, naming its pid and port', () => {
    // Prepare
    const path = folder('held');
    const first = lockStateFolder(path, 3000);
    first.recordPort(41234);

    // Act
    const second = (() => {
      try {
        lockStateFolder(path, 0);
        return undefined;
      } catch (error) {
        return error;
      }
    })();

    // Assess
    expect(second).toBeInstanceOf(StateFolderBusyError);
    expect((second as Error).message).toBe(
      `another npm start (pid ${process.pid}, port 41234) is using ${path}`,
    );
    first.release();
  });

  it('takes over a lock file whose process is gone', () => {
    // Prepare
    const path = folder('crashed', { pid: deadPid(), port: 3000, token: 'crashed-run' });

    // Act
    const lock = lockStateFolder(path, 3001);

    // Assess
    expect(lockFile(path)).toMatchObject({ pid: process.pid, port: 3001 });
    lock.release();
  });

  it('takes over a lock file whose pid now belongs to a process started at another time', () => {
    // Prepare
    const path = folder('reused-pid', {
      pid: process.pid,
      port: 3000,
      started: 'a start time of an earlier process',
      token: 'earlier-run',
    });

    // Act
    const lock = lockStateFolder(path, 3002);

    // Assess
    expect(lockFile(path)).toMatchObject({ pid: process.pid, port: 3002 });
    lock.release();
  });

  it('takes over a lock file it cannot read', () => {
    // Prepare
    const path = folder('unreadable');
    writeFileSync(join(path, STATE_LOCK_FILE), '{"pid":');

    // Act
    const lock = lockStateFolder(path, 3003);

    // Assess
    expect(lockFile(path)).toMatchObject({ pid: process.pid, port: 3003 });
    lock.release();
  });

  it('creates a missing folder, and leaves an existing one, readable by this user only', () => {
    // Prepare
    const created = join(dir(), 'created', 'queues');
    const existing = folder('existing');
    chmodSync(existing, 0o755);

    // Act
    const locks = [lockStateFolder(created, 3006), lockStateFolder(existing, 3007)];

    // Assess: no one else may list the journal and archive, or open them
    expect(statSync(created).mode & 0o777).toBe(0o700);
    expect(statSync(existing).mode & 0o777).toBe(0o700);
    for (const lock of locks) lock.release();
  });

  it('removes only its own lock file on release, and leaves nothing else behind', () => {
    // Prepare
    const path = folder('released');
    const lock = lockStateFolder(path, 3004);
    lock.release();
    const next = lockStateFolder(path, 3005);

    // Act
    lock.release();

    // Assess
    expect(lockFile(path)).toMatchObject({ port: 3005 });
    next.release();
    expect(readdirSync(path)).toEqual([]);
  });
});
