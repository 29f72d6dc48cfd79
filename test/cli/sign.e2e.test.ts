import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, it } from 'vitest';
import { main } from '../../cli/sign.js';
import { runTool } from '../devkit/run-tool.js';
import { runScript, scratchFiles } from '../devkit/spawn-script.js';
import { senderVector } from '../lambda/core/sender-vectors.js';

// PHP sent this pretty body and signed its compact form: sign must print PHP's header.
const pretty = senderVector('php-pretty-crlf');

const file = scratchFiles();

// Each test starts its own process (about half a second each), so they run side by side.
describe.concurrent('Script: npm run sign', () => {
  it('prints only the header value the real sender sent, for a pretty CRLF body', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('pretty.json', pretty.body);

    // Act
    const run = await runScript('sign', ['--body-file', body, '--t', String(pretty.t)], {
      WEBHOOK_SECRET: `${pretty.key}\n`,
    });

    // Assess
    expect(run).toEqual({ status: 0, stdout: `${pretty.header}\n`, stderr: '' });
  });

  it('signs at the current time by default, and verify accepts what it prints', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('now.json', pretty.body);
    const secret = await file('secret.txt', `${pretty.key}\n`);
    const before = Math.floor(Date.now() / 1000);

    // Act
    const signed = await runScript('sign', ['--body-file', body, '--secret-file', secret]);
    const header = signed.stdout.trim();
    const verified = await runScript('verify', [
      '--header',
      header,
      '--body-file',
      body,
      '--secret-file',
      secret,
    ]);

    // Assess
    const t = Number(/^t=(\d+),signature=[0-9a-f]{64}$/.exec(header)?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(verified).toEqual({ status: 0, stdout: 'valid (form: as_sent)\n', stderr: '' });
  });

  it('exits 1 with one line on stderr for a body that is not JSON', async ({ expect }) => {
    // Prepare
    const body = await file('form.txt', 'event=event_booked');

    // Act
    const run = await runScript('sign', ['--body-file', body, '--t', '1'], {
      WEBHOOK_SECRET: 'key',
    });

    // Assess
    expect(run).toEqual({
      status: 1,
      stdout: '',
      stderr: 'the --body-file is not a single JSON value: the service only signs JSON bodies\n',
    });
  });

  it('exits 1 with one line on stderr for a body that is not valid UTF-8', async ({ expect }) => {
    // Prepare
    const body = await file(
      'latin1.json',
      Buffer.from('{"event":"event_booked","name":"Zo\xeb"}', 'latin1'),
    );

    // Act
    const run = await runScript('sign', ['--body-file', body, '--t', '1'], {
      WEBHOOK_SECRET: 'key',
    });

    // Assess
    expect(run).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'the --body-file is not valid UTF-8: the service only signs JSON bodies, which are UTF-8\n',
    });
  });

  it('refuses a key given as an argument with exit 2', async ({ expect }) => {
    // Act
    const run = await runScript('sign', ['--body-file', 'x.json', '--key=secret-value']);

    // Assess
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^--key is not accepted: a key on the command line leaks into shell history/,
    );
    expect(run.stderr).not.toContain('secret-value');
  });

  it('signs with the WEBHOOK_SECRET of the .env that npm start writes when the environment has none', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('pretty-dotenv.json', pretty.body);
    await writeFile(`${dirname(body)}/.env`, `WEBHOOK_SECRET=${pretty.key}\n`);

    // Act
    const run = await runTool(main, ['--body-file', body, '--t', String(pretty.t)], {
      cwd: dirname(body),
    });

    // Assess
    expect(run.status).toBe(0);
    expect(run.out).toEqual([pretty.header]);
  });

  it('explains every flag with --help and exits 0', async ({ expect }) => {
    // Act
    const run = await runScript('sign', ['--help']);

    // Assess
    expect(run.status).toBe(0);
    for (const flag of ['--body-file', '--t', '--secret-file', 'WEBHOOK_SECRET', 'Exit status']) {
      expect(run.stdout).toContain(flag);
    }
  });
});
