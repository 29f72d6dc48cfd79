import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FirehoseClient, PutRecordCommand } from '@aws-sdk/client-firehose';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localS3Client } from '../../devkit/s3-client.js';
import type { ArchivedObject, LocalArchive } from '../../local/local-archive.js';
import { signedHeaderLines } from '../support/aws-signed-head.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';
import { startTestArchive } from '../support/local-archive.js';
import { LOCAL_AWS_SETTINGS } from '../support/local-sqs.js';
import { rawRequest } from '../support/raw-request.js';
import { scratchDir } from '../support/scratch-dir.js';

const root = scratchDir('local-archive-access');
const PLANTED = 'deliveries/2026/12/07/01/planted';

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('Function: startLocalArchive (who may use it)', () => {
  let archive: LocalArchive;
  let stateDir: string;
  const archived: ArchivedObject[] = [];

  beforeAll(async () => {
    stateDir = join(root(), 'state');
    archive = await startTestArchive(stateDir, (_record, object) => archived.push(object));
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    await s3.send(new PutObjectCommand({ Bucket: archive.bucket, Key: 'kept', Body: 'genuine' }));
    s3.destroy();
  });
  afterAll(async () => {
    await archive?.close();
  });

  /** The keys of the bucket and the body of `kept`, read with the archive's credentials. */
  async function contents(): Promise<{ keys: string[]; kept: string | undefined }> {
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    try {
      const { Contents = [] } = await s3.send(new ListObjectsV2Command({ Bucket: archive.bucket }));
      const kept = await s3.send(new GetObjectCommand({ Bucket: archive.bucket, Key: 'kept' }));
      return {
        keys: Contents.map(({ Key }) => Key ?? '').filter((key) => !key.startsWith('deliveries/2')),
        kept: await kept.Body?.transformToString(),
      };
    } finally {
      s3.destroy();
    }
  }

  /** Sends one request signed with the archive's credentials, byte for byte as `target` says. */
  async function signedSend(method: string, target: string, body = '') {
    const connection = await KeptAliveConnection.open(archive.endpoint);
    const lines = await signedHeaderLines(
      {
        method,
        target,
        host: connection.host,
        headers: { 'content-length': String(Buffer.byteLength(body)) },
      },
      archive.credentials,
    );
    connection.write(
      Buffer.from(
        `${method} ${target} HTTP/1.1\r\nHost: ${connection.host}\r\n${lines}\r\n${body}`,
      ),
    );
    const answer = await connection.readAnswer();
    connection.close();
    return answer;
  }

  it.each([
    ['a listing', 'GET', '/webhook-archive?list-type=2', undefined],
    ['a read', 'GET', '/webhook-archive/kept', undefined],
    ['a put', 'PUT', `/webhook-archive/${PLANTED}`, '{"verdict":"queued"}'],
    ['a delete', 'DELETE', '/webhook-archive/kept', undefined],
  ])(
    'answers unsigned %s 403 in S3 XML, and changes nothing',
    async (_name, method, target, body) => {
      // Act
      const answer = await rawRequest(`${archive.endpoint}${target}`, {
        method,
        headers: { host: new URL(archive.endpoint).host },
        ...(body === undefined ? {} : { body }),
      });

      // Assess
      expect(answer.status).toBe(403);
      expect(answer.type).toBe('application/xml');
      expect(answer.body).toContain('<Code>AccessDenied</Code>');
      expect(await contents()).toEqual({ keys: ['kept'], kept: 'genuine' });
    },
  );

  it('answers an unsigned Firehose put 403 in its JSON, and buffers nothing', async () => {
    // Act
    const answer = await rawRequest(archive.endpoint, {
      method: 'POST',
      headers: {
        host: new URL(archive.endpoint).host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'Firehose_20150804.PutRecord',
      },
      body: JSON.stringify({
        DeliveryStreamName: archive.stream,
        Record: { Data: Buffer.from('{"verdict":"queued"}\n').toString('base64') },
      }),
    });
    await archive.flush();

    // Assess
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({
      __type: 'MissingAuthenticationTokenException',
    });
    expect(archived).toEqual([]);
  });

  it.each([
    [
      'another access key',
      { accessKeyId: 'LOCALOTHER', secretAccessKey: 'x' },
      'InvalidAccessKeyId',
    ],
    [
      "s3rver's fixed key",
      { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      'InvalidAccessKeyId',
    ],
    ['its access key with another secret', undefined, 'SignatureDoesNotMatch'],
  ])(
    'refuses S3 and Firehose calls signed with %s, and changes nothing',
    async (_name, given, code) => {
      // Prepare
      const credentials = given ?? { ...archive.credentials, secretAccessKey: 'guessed' };
      const s3 = localS3Client(archive.endpoint, credentials);
      const firehose = new FirehoseClient({
        ...LOCAL_AWS_SETTINGS,
        endpoint: archive.endpoint,
        credentials,
        maxAttempts: 1,
      });
      const failure = (error: { name: string; $metadata?: { httpStatusCode?: number } }) => [
        error.name,
        error.$metadata?.httpStatusCode,
      ];

      // Act
      const answers = {
        put: await s3
          .send(new PutObjectCommand({ Bucket: archive.bucket, Key: PLANTED, Body: 'x' }))
          .then(() => 'taken', failure),
        list: await s3
          .send(new ListObjectsV2Command({ Bucket: archive.bucket }))
          .then(() => 'listed', failure),
        record: await firehose
          .send(
            new PutRecordCommand({
              DeliveryStreamName: archive.stream,
              Record: { Data: Buffer.from('x\n') },
            }),
          )
          .then(() => 'taken', failure),
      };
      s3.destroy();
      firehose.destroy();
      await archive.flush();

      // Assess
      expect(answers).toEqual({ put: [code, 403], list: [code, 403], record: [code, 403] });
      expect(await contents()).toEqual({ keys: ['kept'], kept: 'genuine' });
      expect(archived).toEqual([]);
    },
  );

  it('refuses a signature made for another request', async () => {
    // Prepare
    const connection = await KeptAliveConnection.open(archive.endpoint);
    const lines = await signedHeaderLines(
      { method: 'GET', target: '/webhook-archive/other', host: connection.host },
      archive.credentials,
    );

    // Act
    connection.write(
      Buffer.from(`GET /webhook-archive/kept HTTP/1.1\r\nHost: ${connection.host}\r\n${lines}\r\n`),
    );
    const answer = await connection.readAnswer();
    connection.close();

    // Assess
    expect(answer?.status).toBe(403);
    expect(answer?.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('gives each written object a presigned link that opens it, and no other object', async () => {
    // Prepare
    const firehose = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      endpoint: archive.endpoint,
      credentials: archive.credentials,
    });
    await firehose.send(
      new PutRecordCommand({
        DeliveryStreamName: archive.stream,
        Record: { Data: Buffer.from('{"a":1}\n') },
      }),
    );
    firehose.destroy();
    await archive.flush();
    const link = archived.at(-1)?.url ?? '';
    archived.length = 0;

    // Act
    const opened = await fetch(link);
    const other = await fetch(link.replace(/\/deliveries\/[^?]+/, '/kept'));

    // Assess
    expect(opened.status).toBe(200);
    expect(await opened.text()).toBe('{"a":1}\n');
    expect(other.status).toBe(403);
  });

  it.each([
    [
      'an encoded / climbing out',
      '/webhook-archive/..%2F..%2F..%2Fescaped-archive-key',
      'InvalidArgument',
    ],
    [
      'an encoded \\ climbing out',
      '/webhook-archive/..%5C..%5Cescaped-archive-key',
      'InvalidArgument',
    ],
    ['.. segments', '/webhook-archive/a/../../../escaped-archive-key', 'InvalidArgument'],
    [
      'percent-encoded .. segments',
      '/webhook-archive/%2E%2E/%2E%2E/escaped-archive-key',
      'InvalidArgument',
    ],
    ['a / encoded twice', '/webhook-archive/..%252F..%252Fescaped-archive-key', 'InvalidArgument'],
    ['a segment over 255 bytes', `/webhook-archive/${'a'.repeat(300)}`, 'KeyTooLongError'],
    ['a bucket climbing out', '/..%2F..%2Fescaped-archive-key', 'NoSuchBucket'],
  ])(
    'answers a signed put with %s 4xx, writes nothing, and goes on serving',
    async (_name, target, code) => {
      // Prepare
      const before = filesUnder(root());

      // Act
      const answer = await signedSend('PUT', target, 'planted');
      const after = filesUnder(root());

      // Assess
      expect(answer?.status).toBeGreaterThanOrEqual(400);
      expect(answer?.status).toBeLessThan(500);
      expect(answer?.body).toContain(`<Code>${code}</Code>`);
      expect(after).toEqual(before);
      expect(await contents()).toEqual({ keys: ['kept'], kept: 'genuine' });
    },
  );

  it('refuses a signed DeleteBucket, which would remove the archive', async () => {
    // Act
    const answer = await signedSend('DELETE', '/webhook-archive');

    // Assess
    expect(answer?.status).toBe(403);
    expect(await contents()).toEqual({ keys: ['kept'], kept: 'genuine' });
  });
});

describe('Function: startLocalArchive (a request whose handling fails)', () => {
  it('answers a put whose file cannot be written 500, reports each such request once, and goes on serving', async () => {
    // Prepare: a folder where the object's file goes, as a file system error would stand there.
    const stateDir = join(root(), 'failing');
    const failures: unknown[] = [];
    const { startLocalArchive } = await import('../../local/local-archive.js');
    const archive = await startLocalArchive({
      port: 0,
      stateDir,
      onWriteError: (error) => {
        throw error;
      },
      onRequestError: (error) => failures.push(error),
    });
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(stateDir, 'archive', archive.bucket, 'blocked._S3rver_object'), {
      recursive: true,
    });
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    const put = (Key: string) =>
      s3.send(new PutObjectCommand({ Bucket: archive.bucket, Key, Body: 'x' })).then(
        () => ({ status: 200, attempts: 1 }),
        (error: { $metadata?: { httpStatusCode?: number; attempts?: number } }) => ({
          status: error.$metadata?.httpStatusCode,
          attempts: error.$metadata?.attempts,
        }),
      );

    // Act
    const blocked = await put('blocked');
    const next = await put('next');
    s3.destroy();
    await archive.close();

    // Assess
    // The SDK retries a 500: each attempt is one request, failed and reported once.
    expect(blocked.status).toBe(500);
    expect(next.status).toBe(200);
    expect(failures).toHaveLength(blocked.attempts ?? 0);
    expect((failures[0] as NodeJS.ErrnoException).code).toBe('EISDIR');
  });
});
