import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main as consume } from '../../cli/consume.js';
import { main as rotateSecret } from '../../cli/rotate-secret.js';
import { main as send } from '../../cli/send.js';
import { main as sign } from '../../cli/sign.js';
import { main as verify } from '../../cli/verify.js';
import { EXIT_STATUS } from '../../devkit/exit-status.js';
import { NETWORK_TIMEOUT_MS } from '../../devkit/network.js';
import { processIo } from '../../devkit/tool-io.js';
import { runTool } from '../devkit/run-tool.js';
import { senderVector } from '../lambda/core/sender-vectors.js';
import { refusingEndpoint } from '../support/refusing-endpoint.js';
import { scratchDir } from '../support/scratch-dir.js';
import { type SilentEndpoint, startSilentEndpoint } from '../support/silent-endpoint.js';

const compact = senderVector('php-default-compact');
const dir = scratchDir('tool-failures');
/** Short, so a test of "no answer" takes a moment instead of the real 30 s. */
const TIMEOUT_MS = 400;
let silent: SilentEndpoint;

beforeAll(async () => {
  silent = await startSilentEndpoint();
  await writeFile(join(dir(), 'body.json'), compact.body);
});

afterAll(async () => {
  await silent.close();
});

afterEach(async () => {
  await rm(join(dir(), '.env'), { force: true });
});

/** The tools that sign or verify with the local key, each given what it needs but the key. */
const KEYED_TOOLS = [
  ['send', send, ['--url', 'http://127.0.0.1:1/webhook']],
  ['sign', sign, ['--body-file', 'body.json']],
  ['verify', verify, ['--header', compact.header, '--body-file', 'body.json']],
] as const;

describe('Exit statuses: one per kind of failure, the same from every tool', () => {
  it('gives every tool one network timeout, 30 s', () => {
    // Assess
    expect(NETWORK_TIMEOUT_MS).toBe(30_000);
    expect(processIo().networkTimeoutMs).toBe(NETWORK_TIMEOUT_MS);
  });

  it.each(KEYED_TOOLS)('%s exits 3 when there is no key', async (_, main, args) => {
    // Act
    const run = await runTool(main, args, { cwd: dir() });

    // Assess
    expect(run.status).toBe(EXIT_STATUS.noKey);
    expect(run.status).toBe(3);
    expect(run.err).toEqual([expect.stringMatching(/no key/i)]);
  });

  it.each(KEYED_TOOLS)(
    '%s exits 3 naming the line when .env hides the key behind a line without =',
    async (_, main, args) => {
      // Prepare: Node's parser read this as one variable named "oops\nWEBHOOK_SECRET"
      await writeFile(join(dir(), '.env'), `oops\nWEBHOOK_SECRET=${compact.key}\n`);

      // Act
      const run = await runTool(main, args, { cwd: dir() });

      // Assess
      expect(run.status).toBe(3);
      expect(run.err).toEqual([
        `cannot read ${join(dir(), '.env')}, line 1: no '=': each line must be NAME=value, a # comment or blank`,
      ]);
      expect(run.out).toEqual([]);
    },
  );

  it.each(KEYED_TOOLS)(
    '%s exits 3 instead of signing with the part of a key before a #',
    async (_, main, args) => {
      // Prepare: Node's parser read "ab" as the key
      await writeFile(join(dir(), '.env'), 'PORT=3001\nWEBHOOK_SECRET=ab#cd\n');

      // Act
      const run = await runTool(main, args, { cwd: dir() });

      // Assess
      expect(run.status).toBe(3);
      expect(run.err).toEqual([
        expect.stringContaining(`${join(dir(), '.env')}, line 2: a # inside an unquoted value`),
      ]);
      expect(run.err.join('\n')).not.toContain('ab#cd');
    },
  );

  it('send and consume exit 4 when nothing listens', async () => {
    // Prepare
    const closed = await refusingEndpoint();

    // Act
    const sent = await runTool(send, ['--url', `${closed}/webhook`], {
      env: { WEBHOOK_SECRET: compact.key },
    });
    const consumed = await runTool(consume, ['--queue-url', `${closed}/123456789012/q`]);

    // Assess
    expect([sent.status, consumed.status]).toEqual([4, 4]);
    expect(sent.err).toEqual([
      `POST ${closed}/webhook failed: connection refused (is npm start running, and on this port?)`,
    ]);
    expect(consumed.err).toEqual([
      `Could not read ${closed}/123456789012/q: connection refused (start the local receiver with npm start, or pass --queue-url)`,
    ]);
  });
});

describe('Timeouts: a server that accepts and never answers', () => {
  it('consume --queue-url ends with exit 4 and says no answer came, instead of hanging', async () => {
    // Prepare
    const queueUrl = `${silent.url}/123456789012/webhook-events`;
    const started = Date.now();

    // Act
    const run = await runTool(consume, ['--queue-url', queueUrl], { networkTimeoutMs: TIMEOUT_MS });

    // Assess
    expect(run).toEqual({
      status: 4,
      out: [],
      err: [`Could not read ${queueUrl}: no answer within 0.4 s`],
    });
    expect(Date.now() - started).toBeLessThan(10 * TIMEOUT_MS);
    expect(silent.connections()).toBeGreaterThan(0);
  });

  it('send ends with exit 4 and says no answer came', async () => {
    // Act
    const run = await runTool(send, ['--url', `${silent.url}/webhook`], {
      env: { WEBHOOK_SECRET: compact.key },
      networkTimeoutMs: TIMEOUT_MS,
    });

    // Assess
    expect(run).toEqual({
      status: 4,
      out: [],
      err: [`POST ${silent.url}/webhook failed: no answer within 0.4 s`],
    });
  });

  describe('AWS calls (Secrets Manager, CloudFormation) to a silent endpoint', () => {
    const saved = { ...process.env };

    beforeAll(() => {
      // The SDK clients read these from the process, as they would a real account's settings.
      Object.assign(process.env, {
        AWS_ENDPOINT_URL: silent.url,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      });
    });

    afterAll(() => {
      for (const name of ['AWS_ENDPOINT_URL', 'AWS_REGION', 'AWS_ACCESS_KEY_ID']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
      if (saved.AWS_SECRET_ACCESS_KEY === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.AWS_SECRET_ACCESS_KEY;
    });

    it.each([
      [
        'sign --secret-id',
        sign,
        ['--body-file', 'body.json', '--secret-id', 'webhook/key'],
        'Could not read webhook/key from Secrets Manager: no answer within 0.4 s',
      ],
      [
        'send --secret-id',
        send,
        ['--url', 'http://127.0.0.1:1/webhook', '--secret-id', 'webhook/key'],
        'Could not read webhook/key from Secrets Manager: no answer within 0.4 s',
      ],
      [
        'rotate-secret --promote',
        rotateSecret,
        ['--secret-id', 'webhook/key', '--promote'],
        'Secrets Manager: no answer within 0.4 s',
      ],
      [
        'rotate-secret --endpoint',
        rotateSecret,
        ['--endpoint', 'eu', '--revoke-previous'],
        'CloudFormation: no answer within 0.4 s',
      ],
    ])('%s ends with exit 4 and says no answer came', async (_, main, args, message) => {
      // Act
      const run = await runTool(main, args, { cwd: dir(), networkTimeoutMs: TIMEOUT_MS });

      // Assess
      expect(run.status).toBe(4);
      expect(run.err).toEqual([message]);
    });
  });
});

describe('send with ENDPOINTS set and no --endpoint', () => {
  it.each([
    ['the environment', { ENDPOINTS: 'eu,us' }, ''],
    ['.env', {}, 'ENDPOINTS=eu,us\n'],
  ])(
    'is a usage error (exit 2) listing the names when ENDPOINTS comes from %s, and sends nothing',
    async (_, env, dotEnv) => {
      // Prepare: a server on PORT, which must see no connection
      if (dotEnv !== '') await writeFile(join(dir(), '.env'), dotEnv);
      const before = silent.connections();

      // Act
      const run = await runTool(send, [], {
        cwd: dir(),
        env: { ...env, WEBHOOK_SECRET: compact.key, PORT: new URL(silent.url).port },
      });

      // Assess
      expect(run).toEqual({
        status: 2,
        out: [],
        err: [
          'ENDPOINTS lists eu, us, so npm start serves /webhook/<name> only: pass --endpoint <name> with one of eu, us (see npm run send -- --help)',
        ],
      });
      expect(silent.connections()).toBe(before);
    },
  );
});
