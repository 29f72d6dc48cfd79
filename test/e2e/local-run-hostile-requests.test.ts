import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHIVE_CREDENTIALS_FILE,
  localArchiveCredentials,
} from '../../devkit/archive-credentials.js';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { postWebhook } from '../../devkit/post-webhook.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { signPayload } from '../../lambda/core/index.js';
import { signedHeaderLines } from '../support/aws-signed-head.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';
import { bannerPort, type NpmStart, spawnNpmStart } from '../support/npm-start.js';
import { rawRequest } from '../support/raw-request.js';
import { scratchDir } from '../support/scratch-dir.js';

const KEY = 'whsec_hostile_requests_test_key_0123456789';
const dir = scratchDir('local-run-hostile');

/** The uid and gid of user `nobody`, when this machine has one. */
function nobody(): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return uid === undefined || gid === undefined
    ? undefined
    : { uid: Number(uid), gid: Number(gid) };
}

/**
 * Whether `user` may run this Node.js binary: not when it lies in root's npm cache, as the
 * `node` package's binary does when CI runs the suite on Node 24.
 */
function runsNode(user: { uid: number; gid: number }): boolean {
  return spawnSync(process.execPath, ['--version'], { ...user, cwd: '/', env: {} }).status === 0;
}

const root = process.getuid?.() === 0 ? nobody() : undefined;
const other = root !== undefined && runsNode(root) ? root : undefined;

/** What another user's process tries against the archive port; printed as JSON by the child. */
const OTHER_USER_SCRIPT = `
const [credentialsPath, endpoint] = process.argv.slice(1);
const fs = require('node:fs');
(async () => {
  let read;
  try { fs.readFileSync(credentialsPath, 'utf8'); read = 'read'; } catch (error) { read = error.code; }
  const list = await fetch(endpoint + '/webhook-archive?list-type=2');
  const put = await fetch(endpoint + '/webhook-archive/deliveries/2026/12/07/01/planted', { method: 'PUT', body: '{"verdict":"queued"}' });
  const escape = await fetch(endpoint + '/webhook-archive/..%2F..%2F..%2Fplanted', { method: 'PUT', body: 'x' });
  process.stdout.write(JSON.stringify({ uid: process.getuid(), read, list: list.status, listBody: await list.text(), put: put.status, escape: escape.status }));
})();
`;

describe('npm start against hostile requests', () => {
  let run: NpmStart;
  let banner: string;
  let stateDir: string;

  beforeAll(async () => {
    // The test's folder may be entered by others: the state folder alone keeps them out.
    chmodSync(dir(), 0o755);
    stateDir = join(dir(), 'state');
    run = spawnNpmStart({ WEBHOOK_SECRET: KEY, LOCAL_STATE_DIR: stateDir });
    banner = await run.ready();
  }, 60_000);
  afterAll(async () => {
    run.npm.kill('SIGTERM');
    await run.exit;
  });

  const queueEndpoint = () => `http://127.0.0.1:${bannerPort(banner, 'Queue URL')}/`;
  const archiveEndpoint = () => `http://127.0.0.1:${bannerPort(banner, 'Archive')}`;

  /** A signed booking is answered 200 and queued: npm start still serves. */
  async function stillServes(): Promise<{ status: number; queued: string[] }> {
    const body = buildBookingPayload();
    const answer = await postWebhook(
      `http://127.0.0.1:${bannerPort(banner, 'Webhook URL')}/webhook`,
      Buffer.from(body),
      signPayload(body, KEY, Math.floor(Date.now() / 1000)),
    );
    const queued = await receiveAndDeleteAll(`${queueEndpoint()}123456789012/webhook-events`);
    return { status: answer.status, queued: queued.map((message) => message.Body ?? '') };
  }

  it.each([
    { name: 'a SendMessage whose body is null', target: 'AmazonSQS.SendMessage', body: 'null' },
    { name: 'a call with the body {} and no X-Amz-Target', target: undefined, body: '{}' },
  ])('answers the queue $name 400 and keeps serving', async ({ target, body }) => {
    // Act
    const answer = await rawRequest(queueEndpoint(), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        ...(target === undefined ? {} : { 'x-amz-target': target }),
      },
      body,
    });
    const after = await stillServes();

    // Assess
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toHaveProperty('__type');
    expect(after.status).toBe(200);
    expect(after.queued).toHaveLength(1);
    expect(run.output()).not.toContain('failed on one');
  });

  it('answers an archive put whose key has a segment over 255 bytes 403 unsigned and 400 signed, and keeps serving', async () => {
    // Prepare
    const target = `/webhook-archive/${'a'.repeat(300)}`;
    const connection = await KeptAliveConnection.open(archiveEndpoint());
    const lines = await signedHeaderLines(
      { method: 'PUT', target, host: connection.host, headers: { 'content-length': '1' } },
      localArchiveCredentials(stateDir),
    );

    // Act
    const unsigned = await rawRequest(`${archiveEndpoint()}${target}`, {
      method: 'PUT',
      body: 'x',
    });
    connection.write(
      Buffer.from(`PUT ${target} HTTP/1.1\r\nHost: ${connection.host}\r\n${lines}\r\nx`),
    );
    const signed = await connection.readAnswer();
    connection.close();
    const after = await stillServes();

    // Assess
    expect(unsigned.status).toBe(403);
    expect(signed?.status).toBe(400);
    expect(signed?.body).toContain('<Code>KeyTooLongError</Code>');
    expect(after.status).toBe(200);
    expect(run.output()).not.toContain('failed on one');
  });

  it.skipIf(other === undefined)(
    "refuses another OS user's requests to the archive port: the credentials cannot be read and unsigned calls get 403 (run as nobody; skipped unless the tests run as root on a machine with that user, who may run this Node)",
    async () => {
      // Prepare
      const credentialsPath = join(stateDir, ARCHIVE_CREDENTIALS_FILE);
      const child = spawn(
        process.execPath,
        ['-e', OTHER_USER_SCRIPT, credentialsPath, archiveEndpoint()],
        {
          cwd: '/',
          uid: other?.uid ?? 0,
          gid: other?.gid ?? 0,
          env: { PATH: process.env.PATH ?? '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });

      // Act
      const [code] = await once(child, 'exit');
      const tried = JSON.parse(out) as Record<string, unknown>;
      const s3 = localS3Client(archiveEndpoint(), localArchiveCredentials(stateDir));
      const { Contents = [] } = await s3.send(
        new ListObjectsV2Command({ Bucket: 'webhook-archive' }),
      );
      s3.destroy();

      // Assess
      expect(code).toBe(0);
      expect(tried).toMatchObject({
        uid: other?.uid,
        read: 'EACCES',
        list: 403,
        put: 403,
        escape: 403,
      });
      expect(tried.listBody).not.toContain('<Key>');
      expect(Contents.map(({ Key }) => Key).filter((key) => key?.includes('planted'))).toEqual([]);
      expect(statSync(stateDir).mode & 0o777).toBe(0o700);
      expect(statSync(credentialsPath).mode & 0o777).toBe(0o600);
    },
  );
});
