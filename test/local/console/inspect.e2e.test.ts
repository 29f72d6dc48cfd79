import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  GetQueueAttributesCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXIT_STATUS } from '../../../devkit/exit-status.js';
import { localS3Client } from '../../../devkit/s3-client.js';
import { sqsClientFor } from '../../../devkit/sqs-client.js';
import { QUEUE_SETTINGS } from '../../../lambda/contract/queue-settings.js';
import type { ArchiveRecord } from '../../../lambda/receiver/archive-record.js';
import { ArchiveSource, parseQuery } from '../../../local/console/archive-source.js';
import type { RunningConsole } from '../../../local/console/console-server.js';
import { main as inspect } from '../../../local/console/inspect.js';
import type { LocalArchive } from '../../../local/local-archive.js';
import { type LocalQueues, startLocalQueues } from '../../../local/local-queues.js';
import { runTool } from '../../devkit/run-tool.js';
import { receiveAndDeleteAll } from '../../support/drain.js';
import { countListings, putArchiveObject, startTestArchive } from '../../support/local-archive.js';
import { scratchDir } from '../../support/scratch-dir.js';

const dir = scratchDir('inspect-console');

describe('The console over an archive', () => {
  let archive: LocalArchive;
  let queues: LocalQueues;
  let s3: S3Client;
  let sqs: SQSClient;
  let listings: ReturnType<typeof countListings>;

  beforeAll(async () => {
    archive = await startTestArchive(dir());
    queues = await startLocalQueues({ port: 0 });
    s3 = localS3Client(archive.endpoint, archive.credentials);
    listings = countListings(s3);
    sqs = sqsClientFor(queues.queueUrl);
  });
  afterAll(async () => {
    s3.destroy();
    sqs.destroy();
    await queues.shutdown();
    await archive.close();
  });
  beforeEach(async () => {
    listings.reset();
    await receiveAndDeleteAll(queues.queueUrl);
  });

  const put = (key: string, lines: readonly string[]) =>
    putArchiveObject(s3, archive.bucket, key, lines);
  const source = (pageSize?: number) =>
    new ArchiveSource({
      s3,
      bucket: archive.bucket,
      queue: { client: sqs, url: queues.queueUrl, timeoutMs: 5_000 },
      keyOf: async () => ({ unavailable: 'no key in this test' }),
      ...(pageSize === undefined ? {} : { pageSize }),
    });
  const query = (params: Record<string, string>) => parseQuery(new URLSearchParams(params));

  it('lists a window crossing an hour and a year newest first in pages, each request id once, listing page by page and counting malformed objects', async () => {
    // Prepare: r2 archived twice, two malformed objects, r5 after the window
    const at = (time: string) => `webhook-archive-1-${time}`;
    await put(`deliveries/2026/12/31/23/${at('2026-12-31-23-50-00')}-a`, [
      line(queued('r1', '2026-12-31T23:50:00.000Z', 'k1', 'x')),
      line(queued('r2', '2026-12-31T23:59:59.500Z', 'k2', 'x')),
    ]);
    await put(`deliveries/2027/01/01/00/${at('2027-01-01-00-00-01')}-b`, [
      line(queued('r3', '2027-01-01T00:00:01.000Z', 'k3', 'x')),
      line(queued('r2', '2026-12-31T23:59:59.500Z', 'k2', 'x')),
      'not a record',
    ]);
    await put(`deliveries/2027/01/01/00/${at('2027-01-01-00-10-00')}-c`, ['{"v":1}']);
    await put(`deliveries/2027/01/01/00/${at('2027-01-01-00-20-00')}-d`, [
      line(rejected('r4', '2027-01-01T00:20:00.000Z')),
    ]);
    await put(`deliveries/2027/01/01/03/${at('2027-01-01-03-00-00')}-e`, [
      line(queued('r5', '2027-01-01T03:00:00.000Z', 'k5', 'x')),
    ]);
    const window = { from: '2026-12-31T23:30:00Z', to: '2027-01-01T00:30:00Z' };

    // Act
    const first = await source(2).list(query({ ...window, limit: '2' }));
    const pagedListings = listings.count();
    const second = await source().list(query({ ...window, limit: '2', offset: '2' }));
    const rejectedOnly = await source().list(query({ ...window, status: '4' }));
    const searched = await source().list(query({ ...window, q: 'k3' }));

    // Assess
    expect(first.deliveries.map(({ id }) => id)).toEqual(['r4', 'r3']);
    expect(first).toMatchObject({ matched: 4, nextOffset: 2 });
    expect(first.archive).toEqual({ objects: 4, malformedLines: 2, malformedObjects: 2 });
    // Four objects in range, two a page: the injected page size stands in for S3's 1,000.
    expect(pagedListings).toBeGreaterThanOrEqual(3);
    expect(second.deliveries.map(({ id }) => id)).toEqual(['r2', 'r1']);
    expect(second.nextOffset).toBeUndefined();
    expect(rejectedOnly.deliveries.map(({ id }) => id)).toEqual(['r4']);
    expect(searched.deliveries.map(({ id }) => id)).toEqual(['r3']);
  });

  it('replays a selection the queue partly refuses: reports the refused record by key and sends the rest', async () => {
    // Prepare: three queued deliveries, the second too large for the queue as set
    const key = 'deliveries/2027/02/01/10/webhook-archive-1-2027-02-01-10-00-00-f';
    await put(key, [
      line(queued('s1', '2027-02-01T10:00:01.000Z', 's1', 'small one')),
      line(queued('s2', '2027-02-01T10:00:02.000Z', 's2', 'n'.repeat(3000))),
      line(queued('s3', '2027-02-01T10:00:03.000Z', 's3', 'small three')),
    ]);
    await setMaximumSize(2048);

    try {
      // Act
      const report = await source().replaySelection(
        query({ from: '2027-02-01T10:00:00Z', to: '2027-02-01T11:00:00Z' }),
      );

      // Assess
      expect(report).toMatchObject({ total: 3, sent: 2, refused: 1 });
      expect(report.refusals).toEqual([
        {
          key,
          requestId: 's2',
          reason: expect.stringMatching(/^InvalidParameterValue: .*shorter than 2048 bytes/),
        },
      ]);
      const bodies = (await receiveAndDeleteAll(queues.queueUrl)).map(({ Body }) => Body);
      expect(bodies.sort()).toEqual([body('small one'), body('small three')].sort());
    } finally {
      await setMaximumSize(QUEUE_SETTINGS.maxMessageSizeBytes);
    }
  });

  it('keeps single replays asked at once to at most 10 a second', async () => {
    // Prepare
    await put('deliveries/2027/03/01/10/webhook-archive-1-2027-03-01-10-00-00-g', [
      line(queued('p1', '2027-03-01T10:00:01.000Z', 'p1', 'one')),
      line(queued('p2', '2027-03-01T10:00:02.000Z', 'p2', 'two')),
      line(queued('p3', '2027-03-01T10:00:03.000Z', 'p3', 'three')),
    ]);
    const { window } = query({ from: '2027-03-01T10:00:00Z', to: '2027-03-01T11:00:00Z' });
    const console = source();

    // Act
    const outcomes = await Promise.all(['p1', 'p2', 'p3'].map((id) => console.replay(id, window)));

    // Assess: three messages, sent no sooner than 100 ms after one another
    expect(outcomes).toEqual([{ sent: true }, { sent: true }, { sent: true }]);
    const sentAt = (await receiveAndDeleteAll(queues.queueUrl))
      .map((message) => Number(message.Attributes?.SentTimestamp))
      .sort((a, b) => a - b);
    expect(sentAt).toHaveLength(3);
    expect((sentAt[2] ?? 0) - (sentAt[0] ?? 0)).toBeGreaterThanOrEqual(190);
  });

  describe('npm run inspect -- --stack', () => {
    const cloudFormation = mockClient(CloudFormationClient);
    const stop = new AbortController();
    let running: RunningConsole;
    let stopped: Promise<unknown>;

    beforeAll(async () => {
      // The stack's outputs name the stand-ins; S3 is reached through AWS_ENDPOINT_URL_S3.
      cloudFormation.on(DescribeStacksCommand, { StackName: 'Hooks' }).resolves({
        Stacks: [
          {
            StackName: 'Hooks',
            CreationTime: new Date(),
            StackStatus: 'CREATE_COMPLETE',
            Outputs: [
              { OutputKey: 'QueueUrl', OutputValue: queues.queueUrl },
              { OutputKey: 'DeadLetterQueueUrl', OutputValue: queues.dlqUrl },
              { OutputKey: 'ArchiveBucketName', OutputValue: archive.bucket },
            ],
          },
        ],
      });
      vi.stubEnv('AWS_ENDPOINT_URL_S3', archive.endpoint);
      vi.stubEnv('AWS_REGION', 'us-east-1');
      // The local archive answers only its own credentials, as a bucket answers only its account.
      vi.stubEnv('AWS_ACCESS_KEY_ID', archive.credentials.accessKeyId);
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', archive.credentials.secretAccessKey);
      const now = new Date();
      const hour = now.toISOString().slice(0, 13).replace(/[-T]/g, '/');
      await put(`deliveries/${hour}/stack-object`, [
        line(queued('t1', now.toISOString(), 't1', 'from the stack')),
        line(rejected('t2', now.toISOString())),
      ]);
      await sqs.send(new SendMessageCommand({ QueueUrl: queues.dlqUrl, MessageBody: 'dead' }));
      running = await new Promise<RunningConsole>((resolveReady) => {
        stopped = runTool(
          (args, io) => inspect(args, io, stop.signal, resolveReady),
          ['--stack', 'Hooks', '--port', '0', '--region', 'us-east-1'],
          { env: { ...process.env } },
        );
      });
    });
    afterAll(async () => {
      stop.abort();
      await stopped;
      cloudFormation.restore();
      vi.unstubAllEnvs();
    });

    it('lists and opens the stack archive, replays into its queue, lists and redrives its dead-letter queue', async () => {
      // Act
      const api = (path: string, init?: RequestInit) => fetch(`${running.url}/api${path}`, init);
      const listed = (await (await api('/deliveries')).json()) as {
        deliveries: { id: string }[];
        target: string;
      };
      const opened = (await (await api('/deliveries/t2')).json()) as Record<string, unknown>;
      const replayed = await api('/deliveries/t1/replay', POST);
      const deadLetters = (await (await api('/dead-letters')).json()) as {
        deadLetters: { body: string }[];
      };
      const redrive = (await (await api('/dead-letters/redrive', POST)).json()) as {
        message: string;
      };

      // Assess
      expect(listed.target).toBe('stack Hooks');
      expect(listed.deliveries.map(({ id }) => id)).toEqual(['t1', 't2'].reverse());
      expect(opened).toMatchObject({ status: 401, reason: 'signature_mismatch' });
      expect(opened.noDiagnosis).toMatch(/SecretArn/);
      expect(replayed.status).toBe(200);
      expect(deadLetters.deadLetters.map(({ body: text }) => text)).toEqual(['dead']);
      expect(redrive.message).toMatch(/^SQS message move task started/);
      await expect.poll(() => visible(queues.dlqUrl), { timeout: 10_000 }).toBe(0);
      const bodies = (await receiveAndDeleteAll(queues.queueUrl)).map(({ Body }) => Body);
      expect(bodies.sort()).toEqual([body('from the stack'), 'dead'].sort());
    });
  });

  async function setMaximumSize(bytes: number): Promise<void> {
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: queues.queueUrl,
        Attributes: { MaximumMessageSize: String(bytes) },
      }),
    );
  }

  async function visible(queueUrl: string): Promise<number> {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    return Number(Attributes.ApproximateNumberOfMessages);
  }
});

const POST: RequestInit = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{}',
};

/** A booking body with `note`. */
function body(note: string): string {
  return JSON.stringify({ event: 'event_booked', data: { id: '1', note } });
}

/** A queued call's record: request id, receipt time, dedup key, and a body with `note`. */
function queued(id: string, receivedAt: string, dedupKey: string, note: string): ArchiveRecord {
  const text = body(note);
  return {
    v: 1,
    received_at: receivedAt,
    api_request_id: id,
    verdict: 'queued',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body_base64: Buffer.from(text).toString('base64'),
    body_bytes: Buffer.byteLength(text),
    dedup_key: dedupKey,
    message: {
      attributes: { event: 'event_booked' },
      signature_timestamp: 1_795_000_000,
      deduplication_id: dedupKey,
      group_id: 'bookings',
    },
  };
}

/** A forged call's record. */
function rejected(id: string, receivedAt: string): ArchiveRecord {
  const text = '{"event":"event_booked"}';
  return {
    v: 1,
    received_at: receivedAt,
    api_request_id: id,
    verdict: 'rejected',
    status: 401,
    reason: 'signature_mismatch',
    headers: { 'service-signature': 't=1795000000,signature=AAAA' },
    body_base64: Buffer.from(text).toString('base64'),
    body_bytes: Buffer.byteLength(text),
  };
}

function line(record: ArchiveRecord): string {
  return JSON.stringify(record);
}

const inspectWith = (args: readonly string[]) =>
  runTool((argv, io) => inspect(argv, io, AbortSignal.abort()), args);

describe('Function: npm run inspect options', () => {
  it.each([
    [[], 'pass either --stack <name> or --local'],
    [['--local', '--stack', 'Hooks'], 'pass either --stack <name> or --local'],
    [['--stack', ' '], '--stack needs the name of a deployed stack'],
    [['--local', '--region', 'eu-west-1'], '--profile and --region go with --stack'],
    [['--local', '--port', '70000'], "--port must be a port number from 0 to 65535, got '70000'"],
  ])('refuses %j with exit status 2 and says why', async (args, message) => {
    // Act
    const run = await inspectWith(args);

    // Assess
    expect(run.status).toBe(EXIT_STATUS.usage);
    expect(run.err).toEqual([`${message} (see npm run inspect -- --help)`]);
    expect(run.out).toEqual([]);
  });
});
