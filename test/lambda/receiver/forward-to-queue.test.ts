import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SinkMessage, SinkSendError } from '../../../lambda/receiver/decision/receive.js';
import { queueSink } from '../../../lambda/receiver/forward-to-queue.js';
import { LOCAL_AWS_SETTINGS, type LocalSqs, startLocalSqs } from '../../support/local-sqs.js';

const MESSAGE: SinkMessage = {
  body: '{ "event": "event_booked", "data": { "id": "918273" } }',
  attributes: {
    event: 'event_booked',
    event_at: '2026-11-21T10:15:00+00:00',
    source: 'production',
  },
  signatureTimestamp: 1_795_000_000,
  deduplicationId: 'a'.repeat(64),
  groupId: '918273',
};

describe('Function: queueSink', () => {
  let sqs: LocalSqs;
  const queueName = (suffix = '') => `sink-${randomUUID()}${suffix}`;

  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await sqs.close();
  });

  it('sends the body unchanged with String attributes, a Number signature_timestamp and dedup_key to a standard queue', async () => {
    // Prepare
    const queueUrl = await sqs.createQueue(queueName());

    // Act
    await queueSink(sqs.client, queueUrl).send(MESSAGE);

    // Assess
    const [message, ...rest] = await sqs.receiveAll(queueUrl);
    expect(rest).toEqual([]);
    expect(message?.Body).toBe(MESSAGE.body);
    expect(message?.MessageAttributes).toEqual({
      event: { DataType: 'String', StringValue: 'event_booked' },
      event_at: { DataType: 'String', StringValue: '2026-11-21T10:15:00+00:00' },
      source: { DataType: 'String', StringValue: 'production' },
      signature_timestamp: { DataType: 'Number', StringValue: '1795000000' },
      dedup_key: { DataType: 'String', StringValue: MESSAGE.deduplicationId },
    });
  });

  it('stores a message once on a FIFO queue when it is sent twice with the same dedup id', async () => {
    // Prepare
    const queueUrl = await sqs.createQueue(queueName('.fifo'));
    const sink = queueSink(sqs.client, queueUrl);

    // Act
    await sink.send(MESSAGE);
    await sink.send({ ...MESSAGE, signatureTimestamp: MESSAGE.signatureTimestamp + 30 });

    // Assess
    const messages = await sqs.receiveAll(queueUrl);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.Attributes?.MessageGroupId).toBe('918273');
    expect(messages[0]?.MessageAttributes?.dedup_key).toBeUndefined();
  });

  it('stores both messages on a FIFO queue when their dedup ids differ', async () => {
    // Prepare
    const queueUrl = await sqs.createQueue(queueName('.fifo'));
    const sink = queueSink(sqs.client, queueUrl);

    // Act
    await sink.send(MESSAGE);
    await sink.send({ ...MESSAGE, deduplicationId: 'b'.repeat(64) });

    // Assess
    expect(await sqs.receiveAll(queueUrl)).toHaveLength(2);
  });

  it('throws a SinkSendError carrying the SDK error when the queue does not exist', async () => {
    // Prepare
    const queueUrl = `${sqs.endpoint}/123456789012/${queueName('-missing')}`;

    // Act
    const sending = queueSink(sqs.client, queueUrl).send(MESSAGE);

    // Assess
    await expect(sending).rejects.toThrow(SinkSendError);
    await expect(sending).rejects.toMatchObject({ cause: { name: 'QueueDoesNotExist' } });
  });

  describe('against an endpoint that never answers', () => {
    let silent: Server;
    let silentEndpoint: string;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentEndpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('gives up at the deadline with a SinkSendError instead of hanging', async () => {
      // Prepare: a client without timeouts of its own, so only the sink's deadline can end the wait
      const client = new SQSClient({ ...LOCAL_AWS_SETTINGS, endpoint: silentEndpoint });
      const sink = queueSink(client, `${silentEndpoint}/123456789012/q`, { deadlineMs: 200 });

      // Act
      const sending = sink.send(MESSAGE);

      // Assess
      await expect(sending).rejects.toThrow(SinkSendError);
      client.destroy();
    });
  });
});
