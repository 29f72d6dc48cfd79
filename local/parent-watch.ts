import { execFileSync } from 'node:child_process';

/** How often the watch checks that the processes that started this one still run. */
const WATCH_INTERVAL_MS = 250;

/**
 * Calls `onGone` once when the process that started this one, or the one that started that
 * (`npm start` runs a script through `sh -c`, so npm is the grandparent), stops running. A killed
 * npm (SIGKILL, a closed terminal) cannot pass anything on to its children; this is how the local
 * server notices it and frees its ports instead of running on unseen. The timer does not keep the
 * process alive; {@link ParentWatch.stop} ends it.
 */
export function watchParents(onGone: () => void): ParentWatch {
  const watched = [process.ppid, parentOf(process.ppid)].filter(
    (pid): pid is number => pid !== undefined && pid > 1,
  );
  const timer = setInterval(() => {
    if (watched.every(isRunning) && process.ppid === watched[0]) return;
    clearInterval(timer);
    onGone();
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** A running {@link watchParents}. */
export interface ParentWatch {
  stop(): void;
}

/** Whether process `pid` runs (under this user or another). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The parent of `pid` (via `ps`, on Linux and macOS alike), or `undefined` when unknown. */
function parentOf(pid: number): number | undefined {
  try {
    const text = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
    const parent = Number(text.trim());
    return Number.isInteger(parent) ? parent : undefined;
  } catch {
    return undefined;
  }
}
