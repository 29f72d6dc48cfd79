import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { makeScratchDir } from '../support/scratch-dir.js';
import { toolEnvironment } from '../support/tool-environment.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a script run as its own process did. */
export interface ScriptRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Where a script's stdout goes: captured (default), a file descriptor the test opened (e.g. of
 * `/dev/full`), or a pipe whose reader has gone away, as after `| head`.
 */
export type ScriptStdout = 'captured' | 'closed-pipe' | { readonly fd: number };

/**
 * Runs `cli/<name>.ts` as `npm run <name>` does (node with the tsx loader, in the project
 * directory), with only `PATH` and `env` in its environment, so nothing of the test's own
 * environment (a WEBHOOK_SECRET, say) leaks in.
 *
 * @param name - the script, e.g. `verify`
 * @param args - the arguments after `--`
 * @param env - extra environment variables
 * @param stdout - where its stdout goes (`stdout` of the result is empty unless captured)
 */
export function runScript(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
  stdout: ScriptStdout = 'captured',
): Promise<ScriptRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', `cli/${name}.ts`, ...args], {
    cwd: ROOT,
    env: toolEnvironment(env),
    stdio: ['pipe', typeof stdout === 'object' ? stdout.fd : 'pipe', 'pipe'],
  });
  const output: Buffer[] = [];
  const stderr: Buffer[] = [];
  if (stdout === 'closed-pipe') child.stdout?.destroy();
  else child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({
        status,
        stdout: Buffer.concat(output).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/**
 * A directory under `.local/` for the files a script reads (bodies, keys), created before the file's
 * tests and removed after them. Call at module level.
 *
 * @returns a function that writes `content` to a new file there and resolves with its path
 */
export function scratchFiles(): (name: string, content: string | Uint8Array) => Promise<string> {
  let dir = '';
  beforeAll(async () => {
    dir = await makeScratchDir('script');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return async (name, content) => {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  };
}
