import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { DLQ_NAME, localQueueUrl, QUEUE_NAME } from '../../devkit/local-run.js';
import { QUEUE_SETTINGS } from '../../lambda/contract/queue-settings.js';
import { type LocalQueues, startLocalQueues } from '../../local/local-queues.js';
import { closeServer, listen } from '../../local/net.js';
import { KeptAliveConnection } from '../support/kept-alive-connection.js';
import { scratchDir } from '../support/scratch-dir.js';

const dir = scratchDir('local-queues');

const sqsClient = (endpoint: string): SQSClient =>
  new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

describe('Function: startLocalQueues', () => {
  let queues: LocalQueues | undefined;

  afterEach(async () => {
    await queues?.shutdown();
    queues = undefined;
  });

  it('creates webhook-events redriving to webhook-events-dlq on the port it reports', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);

    // Act
    const main = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['All'] }),
    );
    const dlq = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.dlqUrl, AttributeNames: ['QueueArn'] }),
    );

    // Assess
    expect(queues.port).toBeGreaterThan(0);
    expect(queues.endpoint).toBe(`http://127.0.0.1:${queues.port}`);
    expect(queues.queueUrl).toBe(localQueueUrl(queues.port, QUEUE_NAME));
    expect(queues.dlqUrl).toBe(localQueueUrl(queues.port, DLQ_NAME));
    const redrive = JSON.parse(main.Attributes?.RedrivePolicy ?? '{}');
    expect(redrive).toEqual({ deadLetterTargetArn: dlq.Attributes?.QueueArn, maxReceiveCount: 5 });
  });

  it('accepts a message larger than the 256 KiB SQS default, like the deployed queues', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);
    const body = JSON.stringify({ event: 'event_booked', data: { note: 'x'.repeat(262_144) } });

    // Act
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queues.queueUrl,
        MessageBody: body,
        MessageAttributes: { event: { DataType: 'String', StringValue: 'event_booked' } },
      }),
    );

    // Assess
    expect(sent.MessageId).toBeDefined();
  });

  it('answers a body declared beyond 4 MiB with 413, and a chunked one with 411, before reading it', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);
    const oversize = await KeptAliveConnection.open(queues.endpoint);
    const chunked = await KeptAliveConnection.open(queues.endpoint);
    const sendMessageHead = (connection: KeptAliveConnection, framing: string): Buffer =>
      Buffer.from(
        `POST / HTTP/1.1\r\nHost: ${connection.host}\r\nX-Amz-Target: AmazonSQS.SendMessage\r\nContent-Type: application/x-amz-json-1.0\r\n${framing}\r\n\r\n`,
      );

    // Act: the start of a 64 MiB body, the start of a chunked one, then the largest message SQS
    // takes, which the SDK sends.
    oversize.write(sendMessageHead(oversize, `Content-Length: ${64 * 1024 * 1024}`));
    oversize.write(Buffer.from('{"QueueUrl":"'));
    const tooLarge = await oversize.readAnswer();
    const oversizeClosed = await oversize.closedWithin(2_000);
    chunked.write(sendMessageHead(chunked, 'Transfer-Encoding: chunked'));
    chunked.write(Buffer.from('d\r\n{"QueueUrl":"\r\n'));
    const lengthRequired = await chunked.readAnswer();
    const chunkedClosed = await chunked.closedWithin(2_000);
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queues.queueUrl,
        MessageBody: 'x'.repeat(QUEUE_SETTINGS.maxMessageSizeBytes),
      }),
    );

    // Assess
    expect(tooLarge?.status).toBe(413);
    expect(JSON.parse(tooLarge?.body ?? '')).toEqual({
      __type: 'PayloadTooLarge',
      message: 'a request body may hold at most 4194304 bytes',
    });
    expect(lengthRequired?.status).toBe(411);
    expect(JSON.parse(lengthRequired?.body ?? '')).toEqual({
      __type: 'LengthRequired',
      message: 'a request body must declare its Content-Length',
    });
    expect([oversizeClosed, chunkedClosed]).toEqual([true, true]);
    expect(sent.MessageId).toBeDefined();
  });

  it('sends 100 Continue only to a request whose body it reads: one declared beyond 4 MiB gets 413 alone', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const oversize = await KeptAliveConnection.open(queues.endpoint);
    const within = await KeptAliveConnection.open(queues.endpoint);
    const body = JSON.stringify({ QueueUrl: queues.queueUrl, MessageBody: 'sent after 100' });
    const head = (connection: KeptAliveConnection, length: number): Buffer =>
      Buffer.from(
        `POST / HTTP/1.1\r\nHost: ${connection.host}\r\nX-Amz-Target: AmazonSQS.SendMessage\r\nContent-Type: application/x-amz-json-1.0\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`,
      );

    // Act: heads only, as a client waiting for 100 Continue sends them; the body once it came
    oversize.write(head(oversize, 64 * 1024 * 1024));
    const refused = await oversize.readAnswer({ interim: true });
    const oversizeClosed = await oversize.closedWithin(2_000);
    within.write(head(within, Buffer.byteLength(body)));
    const interim = await within.readAnswer({ interim: true });
    within.write(Buffer.from(body));
    const sent = await within.readAnswer();
    within.close();
    const received = await sqsClient(queues.endpoint).send(
      new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }),
    );

    // Assess
    expect(refused?.status).toBe(413);
    expect(oversizeClosed).toBe(true);
    expect([interim?.status, sent?.status]).toEqual([100, 200]);
    expect(received.Messages?.map((message) => message.Body)).toEqual(['sent after 100']);
  });

  it('reads at most eight of the largest calls at once: a ninth is answered 503 with Retry-After until one ends', async () => {
    // Prepare: eight connections each declaring a 4 MiB body and holding it back.
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);
    const declare = async () => {
      const connection = await KeptAliveConnection.open(queues?.endpoint ?? '');
      connection.write(
        Buffer.from(
          `POST / HTTP/1.1\r\nHost: ${connection.host}\r\nX-Amz-Target: AmazonSQS.SendMessage\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n{`,
        ),
      );
      return connection;
    };
    const holding = [];
    for (let index = 0; index < 8; index++) holding.push(await declare());
    await setTimeout(100);

    // Act
    const ninth = await declare();
    const refused = await ninth.readAnswer();
    const stillOpen = holding.map((connection) => !connection.closed);
    ninth.close();
    for (const connection of holding) connection.close();
    await setTimeout(100);
    const sent = await client.send(
      new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'after the budget' }),
    );

    // Assess
    expect(refused?.status).toBe(503);
    expect(refused?.headers['retry-after']).toBe('1');
    expect(stillOpen).toEqual(Array(8).fill(true));
    expect(sent.MessageId).toBeDefined();
  });

  it('keeps queued messages when the listener is stopped and started again', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);
    await client.send(
      new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: '{"a":"é"}' }),
    );

    // Act
    await queues.close();
    await queues.listen();
    const received = await client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }));

    // Assess
    expect(received.Messages?.map((message) => message.Body)).toEqual(['{"a":"é"}']);
  });

  it('answers sends made at once, each kept by the journal for the next start', async () => {
    // Prepare
    const stateDir = join(dir(), 'concurrent');
    queues = await startLocalQueues({ port: 0, stateDir, fresh: true });
    const client = sqsClient(queues.endpoint);
    const bodies = Array.from({ length: 30 }, (_, index) => `{"n":${index}}`);

    // Act: their answers wait for the flushes, which cover the sends made meanwhile.
    const sent = await Promise.all(
      bodies.map((body) =>
        client.send(new SendMessageCommand({ QueueUrl: queues?.queueUrl, MessageBody: body })),
      ),
    );
    await queues.shutdown();
    queues = await startLocalQueues({ port: 0, stateDir });

    // Assess
    expect(sent.every(({ MessageId }) => MessageId !== undefined)).toBe(true);
    expect(queues.restored).toBe(30);
  });

  it('uses the deployed visibility timeout and retention, and counts a received message as not visible only', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClient(queues.endpoint);
    await client.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: '{}' }));

    // Act
    await client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }));
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['All'] }),
    );
    const again = await client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }));

    // Assess
    expect(Attributes).toMatchObject({
      VisibilityTimeout: String(QUEUE_SETTINGS.visibilityTimeoutSeconds),
      MessageRetentionPeriod: String(QUEUE_SETTINGS.retentionPeriodSeconds),
      MaximumMessageSize: String(QUEUE_SETTINGS.maxMessageSizeBytes),
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '1',
    });
    expect(again.Messages).toBeUndefined();
  });

  it('keeps dead letters 4 days longer than the queue, counted from their first enqueue, across restarts', async () => {
    // Prepare: a journal holding a message of each queue first sent 12 days ago.
    const stateDir = join(dir(), 'dead-letter-retention');
    mkdirSync(stateDir, { recursive: true });
    const sentTimestamp = Date.now() - 12 * 86_400_000;
    const put = (messageId: string, queueName: string) =>
      JSON.stringify({ put: { messageId, queueName, body: '{}', sentTimestamp, receiveCount: 5 } });
    writeFileSync(
      join(stateDir, 'journal.ndjson'),
      `${put('a', QUEUE_NAME)}\n${put('b', DLQ_NAME)}\n`,
    );

    // Act
    queues = await startLocalQueues({ port: 0, stateDir });
    const client = sqsClient(queues.endpoint);
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: queues.dlqUrl, AttributeNames: ['All'] }),
    );
    const fromDlq = await client.send(new ReceiveMessageCommand({ QueueUrl: queues.dlqUrl }));
    const fromMain = await client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }));

    // Assess: 12 days is past the queue's 10 and within the dead-letter queue's 14.
    expect(Attributes?.MessageRetentionPeriod).toBe(String(14 * 86_400));
    expect(queues.restored).toBe(1);
    expect(fromDlq.Messages).toHaveLength(1);
    expect(fromMain.Messages).toBeUndefined();
  });

  it('moves a message received maxReceiveCount times without deletion to the dead-letter queue, and a restart keeps it there', async () => {
    // Prepare
    const stateDir = join(dir(), 'dead-letter');
    queues = await startLocalQueues({ port: 0, stateDir });
    const client = sqsClient(queues.endpoint);
    await client.send(
      new SendMessageCommand({
        QueueUrl: queues.queueUrl,
        MessageBody: '{"poison":true}',
        MessageAttributes: { event: { DataType: 'String', StringValue: 'event_booked' } },
      }),
    );

    // Act
    let receives = 0;
    while (receives < QUEUE_SETTINGS.maxReceiveCount) {
      // Visibility 0: the message is back at once, as if each consumer had failed on it.
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, VisibilityTimeout: 0 }),
      );
      receives += Messages.length;
    }
    await setTimeout(50);
    const fromMain = await client.send(new ReceiveMessageCommand({ QueueUrl: queues.queueUrl }));
    await queues.shutdown();
    queues = await startLocalQueues({ port: 0, stateDir });
    const restarted = sqsClient(queues.endpoint);
    const fromDlq = await restarted.send(
      new ReceiveMessageCommand({
        QueueUrl: queues.dlqUrl,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );

    // Assess
    expect(fromMain.Messages).toBeUndefined();
    expect(queues.restored).toBe(1);
    expect(fromDlq.Messages?.map((message) => message.Body)).toEqual(['{"poison":true}']);
    expect(fromDlq.Messages?.[0]?.MessageAttributes?.event?.StringValue).toBe('event_booked');
  });

  it('answers CONNECT with 400 and a JSON body instead of dropping the connection', async () => {
    // Prepare
    queues = await startLocalQueues({ port: 0 });
    const socket = connect(queues.port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });

    // Act
    socket.write(`CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:${queues.port}\r\n\r\n`);
    await once(socket, 'close');

    // Assess
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n{"message":"Bad Request"}')).toBe(true);
  });

  it('rejects with EADDRINUSE when the port is taken', async () => {
    // Prepare
    const blocker = createServer();
    const port = await listen(blocker, 0, '127.0.0.1');

    // Act
    const started = startLocalQueues({ port });

    // Assess
    await expect(started).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await closeServer(blocker);
  });
});

describe('Function: localQueueUrl', () => {
  it('defaults to webhook-events on port 9324 of the loopback address', () => {
    // Act
    const url = localQueueUrl();

    // Assess
    expect(url).toBe('http://127.0.0.1:9324/123456789012/webhook-events');
  });
});
