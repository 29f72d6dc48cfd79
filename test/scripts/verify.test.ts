import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { senderVector } from '../lambda/core/sender-vectors.js';
import { runScript } from './lib/spawn-script.js';

// Real PHP- and Python-signed calls (test/fixtures/signatures).
const pretty = senderVector('php-pretty-lf');
const slashes = senderVector('php-sent-unescaped-slashes-signed-escaped');
const python = senderVector('py-ensure-ascii-false');
const phpCompact = senderVector('php-default-compact');
const newlineKey = senderVector('php-key-with-trailing-newline');
const unsquashed = senderVector('php-signed-pretty-text-unsquashed');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-cli-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes `content` to a new file in the test directory and returns its path. */
async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

// Each test starts its own process (about half a second each), so they run side by side.
describe.concurrent('Script: npm run verify', () => {
  it('prints valid and the form, exit 0, for a pretty body and a key with a trailing newline', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('pretty.json', pretty.body);

    // Act
    const run = await runScript(
      'verify',
      ['--header', pretty.header, '--body-file', body, '--now', String(pretty.t + 299)],
      { WEBHOOK_SECRET: `${pretty.key}\n` },
    );

    // Assess
    expect(run).toEqual({ status: 0, stdout: 'valid (form: as_sent)\n', stderr: '' });
  });

  it('reads the key from --secret-file, trimmed, and names the slash form that matched', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('slashes.json', slashes.body);
    const secret = await file('secret.txt', `  ${slashes.key}\r\n`);

    // Act
    const run = await runScript('verify', [
      '--header',
      slashes.header,
      '--body-file',
      body,
      '--secret-file',
      secret,
      '--now',
      String(slashes.t),
    ]);

    // Assess
    expect(run).toEqual({ status: 0, stdout: 'valid (form: slashes_escaped)\n', stderr: '' });
  });

  it('exits 1 and says the body was altered in transit when a re-serialized body matches', async ({
    expect,
  }) => {
    // Prepare: Python signed its compact text; the same booking arrives written by PHP's json_encode.
    const body = await file('reencoded.json', phpCompact.body);

    // Act
    const run = await runScript(
      'verify',
      ['--header', python.header, '--body-file', body, '--now', String(python.t)],
      { WEBHOOK_SECRET: python.key },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^invalid: signature_mismatch\n/);
    expect(run.stdout).toContain(
      're-serialized by JSON.parse + JSON.stringify: the body was altered in transit',
    );
    expect(run.stdout).not.toContain('valid (');
  });

  it('exits 1 and says the sender signs with a key that has whitespace around it', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('newline-key.json', newlineKey.body);

    // Act
    const run = await runScript(
      'verify',
      ['--header', newlineKey.header, '--body-file', body, '--now', String(newlineKey.t)],
      { WEBHOOK_SECRET: newlineKey.key },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /^invalid: signature_mismatch\nhint: the signature matches the key with surrounding whitespace \("k7Qe.*\\n"\)/,
    );
  });

  it('exits 1 and says which --now would have been valid when the clock is off', async ({
    expect,
  }) => {
    // Prepare
    const body = await file('skew.json', pretty.body);

    // Act: no --now, so the check runs at the real time, long after the vector was signed.
    const run = await runScript('verify', ['--header', pretty.header, '--body-file', body], {
      WEBHOOK_SECRET: pretty.key,
    });

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^invalid: timestamp_too_old\n/);
    expect(run.stdout).toContain(
      `hint: the signature is valid at --now ${pretty.t}: the call was signed`,
    );
  });

  it('exits 1 and says the sender signed its text with whitespace', async ({ expect }) => {
    // Prepare
    const body = await file('unsquashed.json', unsquashed.body);

    // Act
    const run = await runScript(
      'verify',
      ['--header', unsquashed.header, '--body-file', body, '--now', String(unsquashed.t)],
      { WEBHOOK_SECRET: unsquashed.key },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      'hint: the signature matches the body exactly as sent, whitespace included',
    );
  });

  it('exits 1 with body_not_json for a body that is not JSON', async ({ expect }) => {
    // Prepare
    const body = await file('form.txt', 'event=event_booked&id=1');

    // Act
    const run = await runScript(
      'verify',
      ['--header', pretty.header, '--body-file', body, '--now', String(pretty.t)],
      { WEBHOOK_SECRET: pretty.key },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /^invalid: body_not_json\nhint: the body is not a single JSON value/,
    );
  });

  it('refuses a key given as an argument: exit 2, one line on stderr, nothing on stdout', async ({
    expect,
  }) => {
    // Act
    const run = await runScript('verify', [
      '--header',
      pretty.header,
      '--body-file',
      'x.json',
      '--secret',
      pretty.key,
    ]);

    // Assess
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^--secret is not accepted: a key on the command line leaks into shell history; set WEBHOOK_SECRET or use --secret-file \(see npm run verify -- --help\)\n$/,
    );
    expect(run.stderr).not.toContain(pretty.key);
  });

  it('exits 2 with one line on stderr when there is no key', async ({ expect }) => {
    // Prepare
    const body = await file('no-key.json', pretty.body);

    // Act
    const run = await runScript('verify', ['--header', pretty.header, '--body-file', body]);

    // Assess
    expect(run).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'no key: set WEBHOOK_SECRET or pass --secret-file PATH (a key is never taken as an argument) (see npm run verify -- --help)\n',
    });
  });

  it('explains every flag with --help and exits 0', async ({ expect }) => {
    // Act
    const run = await runScript('verify', ['--help']);

    // Assess
    expect(run.status).toBe(0);
    for (const flag of [
      '--header',
      '--body-file',
      '--now',
      '--tolerance',
      '--secret-file',
      'WEBHOOK_SECRET',
      'Exit status',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });
});
