import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** What a script run as its own process did. */
export interface ScriptRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `scripts/<name>.ts` as `npm run <name>` does (node with the tsx loader, in the project
 * directory), with only `PATH` and `env` in its environment, so nothing of the test's own
 * environment (a WEBHOOK_SECRET, say) leaks in.
 *
 * @param name - the script, e.g. `verify`
 * @param args - the arguments after `--`
 * @param env - extra environment variables
 */
export function runScript(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ScriptRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', `scripts/${name}.ts`, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) =>
      resolve({
        status,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}
