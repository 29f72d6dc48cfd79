import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
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

  /** A client of the embedded server that records the name of each command it sends. */
  function recordingClient(): { client: SQSClient; commands: string[] } {
    const client = new SQSClient({ ...LOCAL_AWS_SETTINGS, endpoint: sqs.endpoint });
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        commands.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize' },
    );
    return { client, commands };
  }

  const numbered = (index: number): SinkMessage => ({
    ...MESSAGE,
    body: `{"event":"event_booked","data":{"id":"${index}"}}`,
    deduplicationId: String(index).padStart(64, '0'),
    groupId: String(index),
  });

  it('sends each message with a SendMessage of its own, also when several are sent at once', async () => {
    // Prepare
    const queueUrl = await sqs.createQueue(queueName());
    const { client, commands } = recordingClient();
    const sink = queueSink(client, queueUrl);

    // Act
    await Promise.all([1, 2, 3].map((index) => sink.send(numbered(index))));

    // Assess
    expect(commands).toEqual(['SendMessageCommand', 'SendMessageCommand', 'SendMessageCommand']);
    const messages = await sqs.receiveAll(queueUrl, { count: 3 });
    expect(messages.map((message) => message.Body).sort()).toEqual(
      [1, 2, 3].map((index) => numbered(index).body),
    );
    client.destroy();
  });

  it('fails only the message the queue refused: the other one sent at once is stored', async () => {
    // Prepare: a queue taking at most 1,024 bytes a message
    const name = queueName();
    const { QueueUrl: queueUrl = '' } = await sqs.client.send(
      new CreateQueueCommand({ QueueName: name, Attributes: { MaximumMessageSize: '1024' } }),
    );
    const sink = queueSink(sqs.client, queueUrl);
    const tooLarge = {
      ...numbered(2),
      body: `{"event":"event_booked","pad":"${'x'.repeat(2000)}"}`,
    };

    // Act
    const [small, large] = await Promise.allSettled([sink.send(numbered(1)), sink.send(tooLarge)]);

    // Assess
    expect(small.status).toBe('fulfilled');
    expect(large).toMatchObject({ status: 'rejected', reason: expect.any(SinkSendError) });
    const cause = large.status === 'rejected' ? (large.reason as Error).cause : undefined;
    expect(cause).toMatchObject({ name: 'InvalidParameterValue' });
    const stored = await sqs.receiveAll(queueUrl);
    expect(stored.map((message) => message.Body)).toEqual([numbered(1).body]);
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
