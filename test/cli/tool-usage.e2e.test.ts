import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every tool of the README, by npm script name, with the file `npm run <name>` runs. */
const TOOLS = {
  start: 'local/start.ts',
  send: 'cli/send.ts',
  consume: 'cli/consume.ts',
  redrive: 'cli/redrive.ts',
  sign: 'cli/sign.ts',
  verify: 'cli/verify.ts',
  'rotate-secret': 'cli/rotate-secret.ts',
  smoke: 'cli/smoke.ts',
  replay: 'cli/replay.ts',
  loadtest: 'loadtest/run.ts',
  bench: 'bench/run.ts',
} as const;

/** Runs a tool as npm does (node with tsx, in the checkout) and collects its output. */
function run(file: string, args: readonly string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

// Each case starts its own process (about half a second each), so they run side by side.
describe.concurrent('Every tool: --help and unknown options', () => {
  it.for(Object.entries(TOOLS))(
    'npm run %s -- --help prints the usage and exits 0',
    async ([, file], { expect }) => {
      // Act
      const result = await run(file, ['--help']);

      // Assess
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^Usage: /);
    },
  );

  it.for(Object.entries(TOOLS))(
    'npm run %s -- --no-such-flag prints the usage on stderr and exits 2',
    async ([, file], { expect }) => {
      // Act
      const result = await run(file, ['--no-such-flag']);

      // Assess
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('--no-such-flag');
      expect(result.stderr).toContain('Usage: ');
      expect(result.stdout).toBe('');
    },
  );
});
