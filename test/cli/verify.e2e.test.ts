import { describe, it } from 'vitest';
import { MAX_DIAGNOSED_DEPTH } from '../../devkit/diagnose-signature.js';
import { signPayload } from '../../lambda/core/index.js';
import { runScript, scratchFiles } from '../devkit/spawn-script.js';
import { senderVector } from '../lambda/core/sender-vectors.js';

// Real PHP- and Python-signed calls (test/fixtures/signatures).
const pretty = senderVector('php-pretty-lf');
const slashes = senderVector('php-sent-unescaped-slashes-signed-escaped');
const python = senderVector('py-ensure-ascii-false');
const phpCompact = senderVector('php-default-compact');
const newlineKey = senderVector('php-key-with-trailing-newline');
const unsquashed = senderVector('php-signed-pretty-text-unsquashed');

const file = scratchFiles();

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

  it('exits 1 with body_not_utf8 for a body that is not valid UTF-8, as the receiver refuses it, though its text matches', async ({
    expect,
  }) => {
    // Prepare: signed over the text a lossy decoder makes of the bytes (U+FFFD for 0xEB).
    const bytes = Buffer.from('{"event":"event_booked","name":"Zo\xeb"}', 'latin1');
    const body = await file('latin1.json', bytes);
    const header = signPayload(bytes, 'key', 1_716_000_000);

    // Act
    const run = await runScript(
      'verify',
      ['--header', header, '--body-file', body, '--now', '1716000000'],
      { WEBHOOK_SECRET: 'key' },
    );

    // Assess
    expect(run).toEqual({
      status: 1,
      stdout:
        'invalid: body_not_utf8\nhint: the signature matches, but the body is not valid UTF-8: the receiver answers such a call 400 body_not_utf8\n',
      stderr: '',
    });
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

  // Each row: the call (header from a real sender), the body file's text, and the expected output.
  it.for([
    [
      'the body was altered in transit (Python signed, PHP re-wrote it)',
      python,
      phpCompact.body,
      /^invalid: signature_mismatch\nhint: the signature matches the body as re-serialized by JSON\.parse \+ JSON\.stringify: the body was altered in transit/,
    ],
    [
      'the sender signs with a key that has whitespace around it',
      newlineKey,
      newlineKey.body,
      /^invalid: signature_mismatch\nhint: the signature matches the key with trailing "\\n" whitespace \(\d+ characters, SHA-256 [0-9a-f]{8}…; the trimmed key is \d+ characters, SHA-256 [0-9a-f]{8}…\)/,
    ],
    [
      'the sender signed its text with whitespace',
      unsquashed,
      unsquashed.body,
      /^invalid: signature_mismatch\nhint: the signature matches the body exactly as sent, whitespace included/,
    ],
    [
      'the body is not JSON',
      pretty,
      'event=event_booked&id=1',
      /^invalid: signature_mismatch\nhint: the body is not a single JSON value/,
    ],
  ] as const)('exits 1 and explains when %s', async ([name, vector, text, output], { expect }) => {
    // Prepare
    const body = await file(`${name.replaceAll(' ', '-')}.json`, text);

    // Act
    const run = await runScript(
      'verify',
      ['--header', vector.header, '--body-file', body, '--now', String(vector.t)],
      { WEBHOOK_SECRET: vector.key },
    );

    // Assess
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(output);
    expect(run.stdout).not.toContain(vector.key.trim());
    expect(run.stderr).toBe('');
  });

  // Issue 20, finding 7: the diagnosis threw a RangeError and verify died with a stack trace.
  it.for([
    ['forged', 0, 'signature_mismatch'],
    ['stale', 3_600, 'timestamp_too_old'],
  ] as const)(
    'exits 1 with the verdict and no diagnosis for a %s body nested 50,000 deep',
    async ([name, age, reason], { expect }) => {
      // Prepare
      const text = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
      const body = await file(`deep-${name}.json`, text);
      const header = signPayload(text, 'not-the-endpoint-key', pretty.t - age);

      // Act
      const run = await runScript(
        'verify',
        ['--header', header, '--body-file', body, '--now', String(pretty.t)],
        { WEBHOOK_SECRET: pretty.key },
      );

      // Assess
      expect(run).toEqual({
        status: 1,
        stdout: `invalid: ${reason}\nno diagnosis: body nested deeper than ${MAX_DIAGNOSED_DEPTH} levels\n`,
        stderr: '',
      });
    },
  );

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

  it('exits 3 with one line on stderr when there is no key', async ({ expect }) => {
    // Prepare
    const body = await file('no-key.json', pretty.body);

    // Act
    const run = await runScript('verify', ['--header', pretty.header, '--body-file', body]);

    // Assess
    expect(run).toEqual({
      status: 3,
      stdout: '',
      stderr:
        'no key: set WEBHOOK_SECRET or pass --secret-file PATH (a key is never taken as an argument)\n',
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
