import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as replay } from '../../cli/replay.js';
import { readArchiveWindow } from '../../devkit/archive-reader.js';
import { localS3Client } from '../../devkit/s3-client.js';
import { signPayload } from '../../lambda/core/index.js';
import type { DeliveryDetail } from '../../local/inspector/delivery.js';
import type { LocalReceiver } from '../../local/local-receiver.js';
import { runTool } from '../devkit/run-tool.js';
import { bookingPayload, TEST_KEY } from '../support/booking.js';
import { receiveAndDeleteAll } from '../support/drain.js';
import { startLocalReceiverInProcess } from '../support/local-receiver.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('local-run-archive');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** What `npm start` wires up: the archive in the state folder, through the real S3 protocol. */
describe('The local run keeps an archive', () => {
  let receiver: LocalReceiver;

  beforeAll(async () => {
    receiver = await startLocalReceiverInProcess(TEST_KEY, dir());
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('archives a queued delivery byte for byte, links it in the inspector, and replays it', async () => {
    // Prepare
    const from = new Date();
    const body = `${JSON.stringify(bookingPayload(), null, 2)}\n`;
    const headers = {
      'Content-Type': 'application/json',
      'Service-Signature': signPayload(body, TEST_KEY, Math.floor(Date.now() / 1000)),
    };

    // Act
    const response = await fetch(receiver.webhook.url, { method: 'POST', headers, body });
    await response.arrayBuffer();
    const id = response.headers.get('x-amzn-requestid') ?? '';
    const to = new Date(Date.now() + 1);
    await receiver.archive.flush();

    // Assess: the record, read back through S3 from the state folder's archive.
    expect(response.status).toBe(200);
    const s3 = localS3Client(receiver.archive.endpoint, receiver.archive.credentials);
    const { calls } = await readArchiveWindow(s3, receiver.archive.bucket, { from, to });
    s3.destroy();
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(sha256(Buffer.from(call?.record.body_base64 ?? '', 'base64'))).toBe(sha256(body));
    expect(call?.record).toMatchObject({ verdict: 'queued', api_request_id: id });
    const [queued] = await receiveAndDeleteAll(receiver.queues.queueUrl);
    expect(call?.record.dedup_key).toBe(queued?.MessageAttributes?.dedup_key?.StringValue);

    // Assess: the inspector's detail links to the object, which the link serves.
    const detail = (await (
      await fetch(`${receiver.inspectorUrl}/api/deliveries/${id}`)
    ).json()) as DeliveryDetail;
    expect(detail.archive?.key).toBe(call?.key);
    const linked = await fetch(detail.archive?.url ?? '');
    expect(JSON.parse(await linked.text())).toEqual(call?.record);

    // Act: replay the window against the local run.
    const run = await runTool(replay, ['--from', from.toISOString(), '--to', to.toISOString()], {
      env: {
        LOCAL_SQS_PORT: String(receiver.queues.port),
        LOCAL_S3_PORT: String(receiver.archive.port),
        LOCAL_STATE_DIR: join(dir(), 'queues'),
      },
    });

    // Assess
    expect(run.out.at(-1)).toBe('replayed 1 of 1 deliveries');
    const [again] = await receiveAndDeleteAll(receiver.queues.queueUrl);
    expect(again?.Body).toBe(body);
  });
});
