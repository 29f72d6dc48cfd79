import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { afterEach } from 'vitest';
import { bannerValue, inheritedEnvironment } from '../../devkit/local-process.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A real `npm start` (npm, the shell it runs, and node with local/start.ts) in the checkout. */
export interface NpmStart {
  /** The npm process. */
  readonly npm: ChildProcess;
  /** Resolves with npm's exit code (`null` when a signal ended it). */
  readonly exit: Promise<number | null>;
  /** Everything printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the banner once the receiver is ready. */
  ready(): Promise<string>;
  /** The pid of the node process that runs the server (a grandchild of npm). */
  serverPid(): number;
}

/** Runs started by {@link spawnNpmStart}, killed after each test of a file that asks for it. */
const running = new Set<NpmStart>();

/**
 * Registers the hook that kills (SIGKILL to npm; the server sees its parent gone and stops) every
 * `npm start` still running after each test, even one that failed half-way. Call at module level.
 */
export function killNpmStartsAfterEach(): void {
  afterEach(() => {
    for (const run of running) {
      if (run.npm.pid !== undefined && isRunning(run.npm.pid)) run.npm.kill('SIGKILL');
    }
    running.clear();
  });
}

/**
 * Runs `npm start` in the checkout on free loopback ports with `env`: always a `LOCAL_STATE_DIR`
 * of the test's own (the checkout's `.local/queues` belongs to the developer's `npm start`), and
 * a `WEBHOOK_SECRET` so that it writes no `.env`.
 */
export function spawnNpmStart(
  env: Readonly<Record<string, string>> & { readonly LOCAL_STATE_DIR: string },
  args: readonly string[] = [],
): NpmStart {
  // npm's own npm_* settings of the test run are left out too: this is a new npm.
  const inherited = Object.fromEntries(
    Object.entries(inheritedEnvironment(process.env)).filter(([name]) => !name.startsWith('npm_')),
  );
  const npm = spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], {
    cwd: ROOT,
    // ENDPOINTS empty: the single endpoint, whatever a developer's .env in the checkout says.
    env: {
      ...inherited,
      PORT: '0',
      LOCAL_SQS_PORT: '0',
      LOCAL_S3_PORT: '0',
      ENDPOINTS: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  npm.stdout?.on('data', keep);
  npm.stderr?.on('data', keep);
  const exit = once(npm, 'exit').then(([code]) => code as number | null);
  const run: NpmStart = {
    npm,
    exit,
    output: () => output,
    ready: () =>
      new Promise((resolveBanner, reject) => {
        const check = (): void => {
          if (output.includes('Press Ctrl-C to stop.')) resolveBanner(output);
        };
        npm.stdout?.on('data', check);
        check();
        void exit.then((code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
      }),
    serverPid: () => {
      const pid = descendants(npm.pid ?? 0).find((candidate) => {
        const [program = '', ...args] = readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split(
          '\0',
        );
        return /(^|\/)node$/.test(program) && args.includes('local/start.ts');
      });
      if (pid === undefined) throw new Error('no node process runs local/start.ts');
      return pid;
    },
  };
  running.add(run);
  return run;
}

/** All processes below `pid` (Linux `/proc`). */
function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** The port a banner line such as `Webhook URL:  http://127.0.0.1:3000/webhook` names. */
export function bannerPort(banner: string, label: string): number {
  return Number(new URL(bannerValue(banner, label)).port);
}

/** Whether something accepts connections on `127.0.0.1:port`. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolveAnswer(true);
    });
    socket.once('error', () => resolveAnswer(false));
  });
}

/** Whether process `pid` still runs (a zombie waiting for its parent counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Milliseconds until `done()` holds, polling every 20 ms; rejects after `limitMs`. */
export async function millisecondsUntil(done: () => Promise<boolean>, limitMs: number) {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > limitMs) throw new Error(`not done within ${limitMs} ms`);
    await new Promise((wait) => setTimeout(wait, 20));
  }
  return Math.round(performance.now() - started);
}
