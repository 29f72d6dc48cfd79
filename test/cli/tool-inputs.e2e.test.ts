import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as send } from '../../cli/send.js';
import { main as sign } from '../../cli/sign.js';
import { main as verify } from '../../cli/verify.js';
import { EXIT_STATUS } from '../../devkit/exit-status.js';
import { MAX_BODY_BYTES_LIMIT } from '../../lambda/contract/settings.js';
import { runTool } from '../devkit/run-tool.js';
import { runScript } from '../devkit/spawn-script.js';
import { senderVector } from '../lambda/core/sender-vectors.js';
import { scratchDir } from '../support/scratch-dir.js';

const compact = senderVector('php-default-compact');
const dir = scratchDir('tool-inputs');

/** The tools that read a body file and a key, with a body file named `body`. */
const BODY_TOOLS = [
  ['send', send, (body: string) => ['--url', 'http://127.0.0.1:1/webhook', '--file', body]],
  ['sign', sign, (body: string) => ['--body-file', body]],
  ['verify', verify, (body: string) => ['--header', compact.header, '--body-file', body]],
] as const;

describe('Tools reading a .env that is no file', () => {
  it.each(BODY_TOOLS)('%s exits 3 with one line naming the .env', async (_, main, args) => {
    // Prepare: a project folder whose .env is a directory
    const project = join(dir(), 'env-directory');
    await mkdir(join(project, '.env'), { recursive: true });
    await writeFile(join(project, 'body.json'), compact.body);

    // Act
    const run = await runTool(main, args('body.json'), { cwd: project });

    // Assess
    expect(run.status).toBe(EXIT_STATUS.noKey);
    expect(run.err).toEqual([`cannot read ${join(project, '.env')}: it is a directory (EISDIR)`]);
  });
});

describe('Tools reading a body file without end', () => {
  it('sign --body-file /dev/zero ends within 15 s with one line and exit 2', async () => {
    // Act
    const started = performance.now();
    const run = await runScript('sign', ['--body-file', '/dev/zero'], {
      WEBHOOK_SECRET: 'k'.repeat(32),
    });

    // Assess
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(run.status).toBe(EXIT_STATUS.usage);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `--body-file /dev/zero holds more than ${MAX_BODY_BYTES_LIMIT} bytes, the largest body a receiver accepts (MAX_BODY_BYTES is at most ${MAX_BODY_BYTES_LIMIT}) (see npm run sign -- --help)\n`,
    );
  });

  it.each(BODY_TOOLS)(
    '%s refuses a body file over the largest body a receiver accepts',
    async (_, main, args) => {
      // Act
      const run = await runTool(main, args('/dev/zero'), {
        env: { WEBHOOK_SECRET: compact.key },
      });

      // Assess
      expect(run.status).toBe(EXIT_STATUS.usage);
      expect(run.err).toEqual([
        expect.stringContaining(`holds more than ${MAX_BODY_BYTES_LIMIT} bytes`),
      ]);
    },
  );
});
