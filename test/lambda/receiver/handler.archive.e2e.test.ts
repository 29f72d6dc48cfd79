import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { FirehoseClient, type FirehoseClientConfig } from '@aws-sdk/client-firehose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readArchiveWindow } from '../../../devkit/archive-reader.js';
import { LOOPBACK } from '../../../devkit/local-run.js';
import { localS3Client } from '../../../devkit/s3-client.js';
import { ARCHIVE_LIMITS } from '../../../lambda/contract/archive-layout.js';
import { METRIC_NAMES } from '../../../lambda/contract/metric-names.js';
import { MAX_BODY_BYTES_LIMIT, SETTINGS } from '../../../lambda/contract/settings.js';
import { FIREHOSE_LIMITS } from '../../../lambda/receiver/archive-record.js';
import { loadConfig } from '../../../lambda/receiver/config.js';
import { ARCHIVE_CLIENT_SETTINGS, createHandler } from '../../../lambda/receiver/handler.js';
import type { LocalArchive } from '../../../local/local-archive.js';
import { closeServer, listen } from '../../../local/net.js';
import { httpApiEvent, lambdaContext } from '../../support/api-gateway-events.js';
import { bookingPayload, signedCall, TEST_KEY } from '../../support/booking.js';
import { type CapturedOutput, captureOutput } from '../../support/capture-output.js';
import { startTestArchive } from '../../support/local-archive.js';
import { LOCAL_AWS_SETTINGS, type LocalSqs, startLocalSqs } from '../../support/local-sqs.js';
import { refusingEndpoint } from '../../support/refusing-endpoint.js';
import { scratchDir } from '../../support/scratch-dir.js';

const stateDir = scratchDir('archive-handler');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('Function: handler, with ARCHIVE_STREAM', () => {
  let sqs: LocalSqs;
  let archive: LocalArchive;
  let output: CapturedOutput;
  let queues = 0;

  beforeAll(async () => {
    sqs = await startLocalSqs();
    archive = await startTestArchive(stateDir());
  });
  afterAll(async () => {
    await archive.close();
    await sqs.close();
  });
  beforeEach(() => {
    output = captureOutput();
  });
  afterEach(() => {
    output.restore();
  });

  /**
   * A handler on a fresh queue, archiving through Firehose at `firehoseEndpoint` with the
   * deployed client settings, or `firehoseSettings` instead.
   */
  async function receiver(
    firehoseEndpoint: string,
    env: Record<string, string> = {},
    firehoseSettings: FirehoseClientConfig = ARCHIVE_CLIENT_SETTINGS,
  ) {
    queues += 1;
    const queueUrl = await sqs.createQueue(`archive-${process.pid}-${queues}`);
    const firehoseClient = new FirehoseClient({
      ...LOCAL_AWS_SETTINGS,
      ...firehoseSettings,
      endpoint: firehoseEndpoint,
      credentials: archive.credentials,
    });
    const handler = createHandler(
      loadConfig({
        WEBHOOK_SECRET: TEST_KEY,
        QUEUE_URL: queueUrl,
        ARCHIVE_STREAM: archive.stream,
        ...env,
      }),
      { sqsClient: sqs.client, firehoseClient },
    );
    return {
      invoke: (call: Parameters<typeof httpApiEvent>[0]) =>
        handler(httpApiEvent(call), lambdaContext()),
      messages: () => sqs.receiveAll(queueUrl),
    };
  }

  /** The archive's records received since `since`, once the stand-in wrote what it buffered. */
  async function archived(since: Date) {
    await archive.flush();
    const s3 = localS3Client(archive.endpoint, archive.credentials);
    try {
      const window = await readArchiveWindow(s3, archive.bucket, {
        from: since,
        to: new Date(Date.now() + 1000),
      });
      return window.calls.map(({ record }) => record);
    } finally {
      s3.destroy();
    }
  }

  it('archives a queued delivery with its exact bytes, headers, verdict and dedup key', async () => {
    // Prepare
    const since = new Date();
    const { invoke, messages } = await receiver(archive.endpoint);
    const body = `${JSON.stringify(bookingPayload({ note: 'caf\u00e9 \u{1F600}' }), null, 2)}\n`;
    const call = signedCall(body, {
      timestamp: Math.floor(Date.now() / 1000),
      headers: { 'User-Agent': 'booking-service/1.0' },
    });

    // Act
    const response = await invoke(call);

    // Assess
    expect(response.statusCode).toBe(200);
    const [queued] = await messages();
    const records = await archived(since);
    expect(records).toHaveLength(1);
    const [record] = records;
    expect(sha256(Buffer.from(record?.body_base64 ?? '', 'base64'))).toBe(sha256(body));
    expect(record).toMatchObject({
      verdict: 'queued',
      status: 200,
      dedup_key: queued?.MessageAttributes?.dedup_key?.StringValue,
      headers: {
        'service-signature': call.headers?.['Service-Signature'],
        'content-type': 'application/json',
        'user-agent': 'booking-service/1.0',
      },
      message: { attributes: { event: 'event_booked' } },
    });
    expect(record?.source_ip).toMatch(/\d/);
    // The front door's request id, as the message carries it: a delivery followed into the archive.
    const requestId = queued?.MessageAttributes?.request_id?.StringValue;
    expect(requestId).toMatch(/\S/);
    expect(record?.api_request_id).toBe(requestId);
    expect(record?.message?.attributes.request_id).toBe(requestId);
    expect(output.text()).not.toContain(record?.body_base64);
  });

  it("archives the largest body the default MAX_BODY_BYTES lets in, its event and source filling it, within Firehose's record limit", async () => {
    // Prepare: the body's text is copied again into the message's attributes, and the record
    // holds both (the body as base64), so this is the largest record a queued call makes.
    const since = new Date();
    const { invoke } = await receiver(archive.endpoint, { FORWARD_EVENTS: '*' });
    const maxBodyBytes = SETTINGS.maxBodyBytes.default;
    const filler = maxBodyBytes - JSON.stringify({ event: '', source: '' }).length;
    const half = Math.floor(filler / 2);
    const body = JSON.stringify({ event: 'e'.repeat(half), source: 's'.repeat(filler - half) });

    // Act
    const response = await invoke(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) }));

    // Assess
    expect(Buffer.byteLength(body)).toBe(maxBodyBytes);
    expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
    const [record] = await archived(since);
    expect(record?.message?.attributes.source).toHaveLength(filler - half);
    expect(Buffer.byteLength(JSON.stringify(record))).toBeLessThan(FIREHOSE_LIMITS.recordBytes);
    expect(output.text()).not.toContain('archive');
  });

  it("archives the start of a body at MAX_BODY_BYTES' maximum whose record would be over Firehose's limit, marked cut, and queues it whole", async () => {
    // Prepare: the largest body the setting allows, its event and source filling it, makes a
    // record (the body as base64 and its text again in the attributes) over 1,000 KiB.
    const since = new Date();
    const { invoke, messages } = await receiver(archive.endpoint, {
      FORWARD_EVENTS: '*',
      MAX_BODY_BYTES: String(MAX_BODY_BYTES_LIMIT),
    });
    const filler = MAX_BODY_BYTES_LIMIT - JSON.stringify({ event: '', source: '' }).length;
    const half = Math.floor(filler / 2);
    const body = JSON.stringify({ event: 'e'.repeat(half), source: 's'.repeat(filler - half) });

    // Act
    const response = await invoke(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) }));

    // Assess
    expect(JSON.parse(response.body)).toEqual({ status: 'queued' });
    const [queued] = await messages();
    expect(queued?.Body).toBe(body);
    const [record] = await archived(since);
    const kept = Buffer.from(record?.body_base64 ?? '', 'base64').toString('utf8');
    expect(record).toMatchObject({
      verdict: 'queued',
      body_bytes: MAX_BODY_BYTES_LIMIT,
      body_truncated: true,
      dedup_key: queued?.MessageAttributes?.dedup_key?.StringValue,
    });
    expect(record?.message?.attributes.source).toHaveLength(filler - half);
    expect(kept.length).toBeGreaterThan(0);
    expect(body.startsWith(kept)).toBe(true);
    expect(Buffer.byteLength(`${JSON.stringify(record)}\n`)).toBeLessThanOrEqual(
      FIREHOSE_LIMITS.recordBytes,
    );
    expect(output.text()).not.toContain('archive');
  });

  it('archives a verified call it ignores, without a message', async () => {
    // Prepare
    const since = new Date();
    const { invoke } = await receiver(archive.endpoint);
    const body = JSON.stringify({ event: 'event_cancelled', data: { id: '7' } });

    // Act
    const response = await invoke(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) }));

    // Assess
    expect(JSON.parse(response.body)).toEqual({ status: 'ignored' });
    const [record] = await archived(since);
    expect(record?.verdict).toBe('ignored');
    expect(record?.message).toBeUndefined();
  });

  it(`keeps ${ARCHIVE_LIMITS.rejectedPerMinute} rejected calls a minute, each cut to ${ARCHIVE_LIMITS.rejectedBodyBytes} bytes`, async () => {
    // Prepare
    const since = new Date();
    const { invoke } = await receiver(archive.endpoint);
    const forged = JSON.stringify(bookingPayload({ pad: 'x'.repeat(10_000) }));
    const calls = ARCHIVE_LIMITS.rejectedPerMinute + 5;

    // Act
    for (let index = 0; index < calls; index++) {
      const response = await invoke(
        signedCall(forged, { timestamp: Math.floor(Date.now() / 1000), key: 'forged' }),
      );
      expect(response.statusCode).toBe(401);
    }

    // Assess
    const records = await archived(since);
    expect(records).toHaveLength(ARCHIVE_LIMITS.rejectedPerMinute);
    for (const record of records) {
      expect(record).toMatchObject({
        verdict: 'rejected',
        status: 401,
        reason: 'signature_mismatch',
        body_bytes: Buffer.byteLength(forged),
        body_truncated: true,
      });
      expect(Buffer.from(record.body_base64, 'base64')).toEqual(
        Buffer.from(forged).subarray(0, ARCHIVE_LIMITS.rejectedBodyBytes),
      );
    }
  });

  it('answers 200 and keeps the queued message when the archive refuses connections, and counts the failure', async () => {
    // Prepare
    const { invoke, messages } = await receiver(await refusingEndpoint());
    const body = JSON.stringify(bookingPayload());

    // Act
    const response = await invoke(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) }));

    // Assess
    expect(response.statusCode).toBe(200);
    expect((await messages()).map((message) => message.Body)).toEqual([body]);
    expect(output.metricValues()).toContainEqual(
      expect.objectContaining({ name: METRIC_NAMES.archiveWriteFailure, value: 1 }),
    );
    const failure = output.logs().find((line) => line.level === 'ERROR');
    expect(failure?.message).toMatch(/Archiving the call failed/);
    expect(output.text()).not.toContain(body);
  });

  describe('when the archive hangs', () => {
    let hung: Server;
    let endpoint: string;
    /** When each request reached the archive (`performance.now()`). */
    let arrivals: number[];
    beforeAll(async () => {
      // Takes the connection and never answers.
      hung = createServer(() => {
        arrivals.push(performance.now());
      });
      endpoint = `http://${LOOPBACK}:${await listen(hung, 0, LOOPBACK)}`;
    });
    beforeEach(() => {
      arrivals = [];
    });
    afterAll(async () => {
      await closeServer(hung);
    });

    it(`answers 200 within the ${ARCHIVE_LIMITS.writeBoundMs} ms write bound`, async () => {
      // Prepare: the client's own time-outs (400 ms a try, two tries, about as long as the bound)
      // lifted, so only the bound can end the wait, which would otherwise outlast the test.
      const { invoke, messages } = await receiver(
        endpoint,
        {},
        {
          ...ARCHIVE_CLIENT_SETTINGS,
          requestHandler: { ...ARCHIVE_CLIENT_SETTINGS.requestHandler, requestTimeout: 60_000 },
        },
      );
      const body = JSON.stringify(bookingPayload());

      // Act
      const response = await invoke(signedCall(body, { timestamp: Math.floor(Date.now() / 1000) }));
      const answeredAt = performance.now();

      // Assess: timed from the write reaching the archive, not from the call (the queue's send
      // and the cold client come before it, and take their time on a loaded machine).
      expect(response.statusCode).toBe(200);
      expect(arrivals.length).toBeGreaterThan(0);
      expect(answeredAt - (arrivals[0] ?? 0)).toBeLessThan(ARCHIVE_LIMITS.writeBoundMs + 1000);
      expect((await messages()).map((message) => message.Body)).toEqual([body]);
      expect(output.metricValues()).toContainEqual(
        expect.objectContaining({ name: METRIC_NAMES.archiveWriteFailure, value: 1 }),
      );
    });
  });
});
