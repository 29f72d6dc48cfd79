import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { toolEnvironment } from '../support/tool-environment.js';

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
  inspect: 'local/console/inspect.ts',
  loadtest: 'loadtest/run.ts',
  bench: 'bench/run.ts',
} as const;

/** Runs a tool as npm does (node with tsx, in the checkout) and collects its output. */
function run(file: string, args: readonly string[]) {
  return collect(process.execPath, ['--import', 'tsx', file, ...args], toolEnvironment());
}

/** Runs a command in the checkout and collects its output. */
function collect(command: string, args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd: ROOT, env });
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

describe('Every tool: its npm script', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };

  it.for(Object.entries(TOOLS))(
    'npm run %s runs its file with node and tsx compiling in memory',
    ([name, file], { expect }) => {
      // Assess: what the usage tests above run is what npm runs.
      expect(scripts[name]).toBe(
        `TSX_DISABLE_CACHE=1 ${name === 'start' ? 'exec ' : ''}node --import tsx ${file}`,
      );
    },
  );

  it('run by npm, the tools write nothing to the temp folder', async ({ expect }) => {
    // Prepare: a temp folder of this test's own, empty.
    await mkdir(join(ROOT, '.local'), { recursive: true });
    const tmp = await mkdtemp(join(ROOT, '.local', 'tool-tmp-'));
    try {
      // Act
      const results = await Promise.all(
        Object.keys(TOOLS).map((name) =>
          // Not toolEnvironment(): turning tsx's cache off is the npm scripts' own job here.
          collect('npm', ['run', '--silent', name, '--', '--help'], {
            PATH: process.env.PATH ?? '',
            TMPDIR: tmp,
          }),
        ),
      );

      // Assess: npm itself keeps a compile cache there on Node 22 and later; nothing else.
      expect(results.map((result) => result.status)).toEqual(results.map(() => 0));
      expect((await readdir(tmp)).filter((name) => name !== 'node-compile-cache')).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
