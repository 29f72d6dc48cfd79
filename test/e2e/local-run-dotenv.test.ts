import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../support/scratch-dir.js';
import { killStartedProcessesAfterEach, startProcess } from '../support/start-process.js';

killStartedProcessesAfterEach();
const dir = scratchDir('local-run-dotenv');

describe('npm start with a .env it cannot read', () => {
  it.each([
    [
      'a line without = before the key (the key was hidden, and a new one generated over it)',
      '# keys of the local run\nPORT 3001\nWEBHOOK_SECRET=the-senders-key\n',
      "line 2: no '=': each line must be NAME=value, a # comment or blank",
    ],
    [
      'a key with a # in it',
      'WEBHOOK_SECRET=the-senders#key\n',
      'line 1: a # inside an unquoted value',
    ],
    [
      'WEBHOOK_SECRET named with a blank value',
      'ENDPOINTS=\nWEBHOOK_SECRET=\n',
      'line 2: WEBHOOK_SECRET is empty: put the key there, or delete the line',
    ],
  ])(
    'exits 3 naming the line and the reason, and writes nothing, for %s',
    async (_, text, reason) => {
      // Prepare
      const cwd = join(dir(), String(Math.random()).slice(2));
      await mkdir(cwd);
      const dotEnv = join(cwd, '.env');
      await writeFile(dotEnv, text);

      // Act
      const started = startProcess(cwd);
      const code = await started.exit;

      // Assess
      expect(code).toBe(3);
      expect(started.stderr()).toContain(`cannot read ${dotEnv}, ${reason}`);
      expect(started.stdout()).not.toContain('Generated');
      expect(await readFile(dotEnv, 'utf8')).toBe(text);
    },
  );
});
