import { randomUUID } from 'node:crypto';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/redrive.js';
import { EXIT_STATUS } from '../../devkit/exit-status.js';
import { NETWORK_TIMEOUT_MS } from '../../devkit/network.js';
import { type RedriveOptions, redrive } from '../../devkit/redrive-core.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import type { ToolIo } from '../../devkit/tool-io.js';
import { type LocalQueues, startLocalQueues } from '../../local/local-queues.js';
import { runTool } from '../devkit/run-tool.js';
import { type LocalSqs, useLocalSqs } from '../support/local-sqs.js';
import { startSilentEndpoint } from '../support/silent-endpoint.js';

const MESSAGES = 25;
const OPTIONS: RedriveOptions = { dryRun: false, pollMs: 100 };

/** A source queue and its dead-letter queue (the source's redrive policy names it, as deployed). */
async function queuePair(sqs: LocalSqs, fifo: boolean) {
  const suffix = fifo ? '.fifo' : '';
  const fifoAttributes = fifo ? { FifoQueue: 'true' } : {};
  const name = `redrive-${randomUUID()}`;
  const created = await sqs.client.send(
    new CreateQueueCommand({ QueueName: `${name}-dlq${suffix}`, Attributes: fifoAttributes }),
  );
  const deadLetterUrl = created.QueueUrl as string;
  const { Attributes } = await sqs.client.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }),
  );
  const source = await sqs.client.send(
    new CreateQueueCommand({
      QueueName: `${name}${suffix}`,
      Attributes: {
        ...fifoAttributes,
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: Attributes?.QueueArn,
          maxReceiveCount: 5,
        }),
      },
    }),
  );
  return { sourceUrl: source.QueueUrl as string, deadLetterUrl };
}

/** Puts `count` dead letters as the receiver queues bookings: body, attributes, group, dedup id. */
async function fillDeadLetters(client: SQSClient, queueUrl: string, count: number) {
  const fifo = queueUrl.endsWith('.fifo');
  for (let index = 0; index < count; index++) {
    await client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ event: 'event_booked', data: { id: `b${index}` } }),
        MessageAttributes: {
          event: { DataType: 'String', StringValue: 'event_booked' },
          request_id: { DataType: 'String', StringValue: `req-${index}` },
          signature_timestamp: { DataType: 'Number', StringValue: '1795000000' },
        },
        ...(fifo
          ? { MessageGroupId: `group-${index % 3}`, MessageDeduplicationId: `dedup-${index}` }
          : {}),
      }),
    );
  }
  // The embedded server counts a message just sent as delayed until a 0 ms timer has run, and
  // both the dry run's count and a move task's total read the visible count only: wait for it,
  // as a dead-letter queue holds its messages long before anyone redrives them.
  await expect.poll(() => visibleCount(client, queueUrl)).toBe(count);
}

async function visibleCount(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
}

/** Collects the lines a redrive writes. */
function collectingIo(): ToolIo & { readonly lines: { out: string[]; err: string[] } } {
  const lines = { out: [] as string[], err: [] as string[] };
  return {
    lines,
    out: (line) => lines.out.push(line),
    err: (line) => lines.err.push(line),
    env: {},
    stdin: process.stdin,
    cwd: process.cwd(),
    projectDir: process.cwd(),
    networkTimeoutMs: NETWORK_TIMEOUT_MS,
  };
}

const idOf = (message: Message) => JSON.parse(message.Body ?? '{}').data.id as string;

describe('Function: redrive', () => {
  const sqs = useLocalSqs();

  it('moves every dead letter of a standard queue back by an SQS move task, reporting progress', async () => {
    // Prepare
    const queues = await queuePair(sqs(), false);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, MESSAGES);
    const io = collectingIo();

    // Act
    const result = await redrive(sqs().client, queues, OPTIONS, io, new AbortController().signal);

    // Assess
    expect(result).toEqual({ moved: MESSAGES, complete: true });
    expect(io.lines.out).toEqual([`moved ${MESSAGES} messages`]);
    expect(io.lines.err[0]).toMatch(/SQS message move task started/);
    expect(io.lines.err).toContain(`moving: ${MESSAGES} of about ${MESSAGES}`);
    expect(await sqs().messageCount(queues.deadLetterUrl)).toBe(0);
    const moved = await sqs().receiveAll(queues.sourceUrl, { count: MESSAGES });
    expect(moved.map(idOf).sort()).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => `b${index}`).sort(),
    );
    expect(moved[0]?.MessageAttributes?.request_id?.StringValue).toMatch(/^req-\d+$/);
  });

  it('moves every dead letter of a FIFO queue with its group, dedup id and attributes, in order per group', async () => {
    // Prepare
    const queues = await queuePair(sqs(), true);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, MESSAGES);
    const io = collectingIo();

    // Act
    const result = await redrive(sqs().client, queues, OPTIONS, io, new AbortController().signal);

    // Assess
    expect(result).toEqual({ moved: MESSAGES, complete: true });
    expect(io.lines.out).toEqual([`moved ${MESSAGES} messages`]);
    expect(await sqs().messageCount(queues.deadLetterUrl)).toBe(0);
    const moved = await sqs().receiveAll(queues.sourceUrl, { count: MESSAGES });
    expect(moved).toHaveLength(MESSAGES);
    for (const message of moved) {
      const index = Number(idOf(message).slice(1));
      expect(message.Attributes?.MessageGroupId).toBe(`group-${index % 3}`);
      expect(message.Attributes?.MessageDeduplicationId).toBe(`dedup-${index}`);
      expect(message.MessageAttributes?.request_id?.StringValue).toBe(`req-${index}`);
      expect(message.MessageAttributes?.signature_timestamp).toMatchObject({
        DataType: 'Number',
        StringValue: '1795000000',
      });
    }
    for (const group of ['group-0', 'group-1', 'group-2']) {
      const order = moved
        .filter((message) => message.Attributes?.MessageGroupId === group)
        .map((message) => Number(idOf(message).slice(1)));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it('moves at most --max messages, message by message, also on a standard queue', async () => {
    // Prepare
    const queues = await queuePair(sqs(), false);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, MESSAGES);

    // Act
    const result = await redrive(
      sqs().client,
      queues,
      { ...OPTIONS, max: 10 },
      collectingIo(),
      new AbortController().signal,
    );

    // Assess
    expect(result).toEqual({ moved: 10, complete: true });
    expect(await sqs().messageCount(queues.sourceUrl)).toBe(10);
    expect(await sqs().messageCount(queues.deadLetterUrl)).toBe(MESSAGES - 10);
  });

  it.each([
    ['a FIFO queue', true],
    ['a standard queue with --max', false],
  ])('loses no message of %s when interrupted mid-way', async (_, fifo) => {
    // Prepare: the stop signal fires once the 7th message was sent back
    const queues = await queuePair(sqs(), fifo);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, MESSAGES);
    const stop = new AbortController();
    const client = sqsClientFor(queues.sourceUrl);
    let sends = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const answer = await next(args);
        if (context.commandName === 'SendMessageCommand' && ++sends === 7) stop.abort();
        return answer;
      },
      { step: 'initialize' },
    );
    const io = collectingIo();

    // Act
    const result = await redrive(
      client,
      queues,
      fifo ? OPTIONS : { ...OPTIONS, max: MESSAGES },
      io,
      stop.signal,
    );
    client.destroy();

    // Assess: 7 moved, the other 18 back in the dead-letter queue at once, none twice
    expect(result).toEqual({ moved: 7, complete: false });
    expect(io.lines.out).toEqual(['moved 7 messages']);
    expect(io.lines.err.at(-1)).toMatch(/interrupted after 7 messages/);
    const source = await sqs().receiveAll(queues.sourceUrl);
    const deadLetters = await sqs().receiveAll(queues.deadLetterUrl);
    expect(source).toHaveLength(7);
    expect(deadLetters).toHaveLength(MESSAGES - 7);
    expect([...source, ...deadLetters].map(idOf).sort()).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => `b${index}`).sort(),
    );
  });

  it('keeps a message sent back but not deleted in the dead-letter queue when the run dies there', async () => {
    // Prepare: the delete after the 7th send fails, as if the process were killed between them
    const queues = await queuePair(sqs(), true);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, MESSAGES);
    const client = sqsClientFor(queues.sourceUrl);
    let deletes = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'DeleteMessageCommand' && ++deletes === 7) {
          throw new Error('killed');
        }
        return next(args);
      },
      { step: 'initialize' },
    );

    // Act
    const run = redrive(client, queues, OPTIONS, collectingIo(), new AbortController().signal);

    // Assess: every booking is in one queue or the other; the 7th is in both (the consumer's
    // idempotency, or a later redrive's dedup id, takes care of the copy)
    await expect(run).rejects.toThrow('killed');
    client.destroy();
    expect(await sqs().messageCount(queues.sourceUrl)).toBe(7);
    // Received (invisible) messages count too on the embedded server.
    expect(await sqs().messageCount(queues.deadLetterUrl)).toBe(MESSAGES - 6);
  });

  it('moves nothing on a dry run and says how many would move', async () => {
    // Prepare
    const queues = await queuePair(sqs(), false);
    await fillDeadLetters(sqs().client, queues.deadLetterUrl, 4);
    const io = collectingIo();

    // Act
    const result = await redrive(
      sqs().client,
      queues,
      { ...OPTIONS, dryRun: true },
      io,
      new AbortController().signal,
    );

    // Assess
    expect(result).toEqual({ moved: 0, complete: true });
    expect(io.lines.out).toEqual(['dry run: would move about 4 messages']);
    expect(io.lines.err[0]).toContain('by an SQS message move task');
    expect(await sqs().messageCount(queues.deadLetterUrl)).toBe(4);
    expect(await sqs().messageCount(queues.sourceUrl)).toBe(0);
  });
});

describe('Tool: npm run redrive', () => {
  let queues: LocalQueues;
  let client: SQSClient;
  const cloudFormation = mockClient(CloudFormationClient);

  beforeEach(async () => {
    // The queues of npm start, empty: webhook-events redriving to webhook-events-dlq.
    queues = await startLocalQueues({ port: 0 });
    client = sqsClientFor(queues.queueUrl);
  });
  afterEach(async () => {
    cloudFormation.reset();
    client.destroy();
    await queues.shutdown();
  });
  afterAll(() => cloudFormation.restore());

  const count = async (queueUrl: string) => {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
    );
  };

  it('moves the dead letters of the local run back to its queue', async () => {
    // Prepare
    await fillDeadLetters(client, queues.dlqUrl, 5);

    // Act
    const run = await runTool(main, [], { env: { LOCAL_SQS_PORT: String(queues.port) } });

    // Assess
    expect(run.status).toBe(0);
    expect(run.out).toEqual(['moved 5 messages']);
    expect(await count(queues.dlqUrl)).toBe(0);
    expect(await count(queues.queueUrl)).toBe(5);
  });

  it('reads the queues of --stack from its CloudFormation outputs', async () => {
    // Prepare: a stack whose outputs name the local queues
    cloudFormation.on(DescribeStacksCommand, { StackName: 'Hooks' }).resolves({
      Stacks: [
        {
          StackName: 'Hooks',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [
            { OutputKey: 'QueueUrl', OutputValue: queues.queueUrl },
            { OutputKey: 'DeadLetterQueueUrl', OutputValue: queues.dlqUrl },
          ],
        },
      ],
    });
    await fillDeadLetters(client, queues.dlqUrl, 3);

    // Act
    const run = await runTool(main, ['--stack', 'Hooks', '--max', '2']);

    // Assess
    expect(run.status).toBe(0);
    expect(run.out).toEqual(['moved 2 messages']);
    expect(await count(queues.dlqUrl)).toBe(1);
  });

  it('exits 1 naming the problem for an unknown stack and for a stack without a dead-letter queue', async () => {
    // Prepare
    const missing = Object.assign(new Error('Stack with id Nope does not exist'), {
      name: 'ValidationError',
    });
    cloudFormation.on(DescribeStacksCommand, { StackName: 'Nope' }).rejects(missing);
    cloudFormation.on(DescribeStacksCommand, { StackName: 'Own' }).resolves({
      Stacks: [
        {
          StackName: 'Own',
          CreationTime: new Date(),
          StackStatus: 'CREATE_COMPLETE',
          Outputs: [{ OutputKey: 'QueueUrl', OutputValue: queues.queueUrl }],
        },
      ],
    });

    // Act
    const unknown = await runTool(main, ['--stack', 'Nope']);
    const own = await runTool(main, ['--stack', 'Own']);

    // Assess
    expect(unknown.status).toBe(1);
    expect(unknown.err).toEqual([
      'CloudFormation: Stack with id Nope does not exist (check --stack and the AWS region)',
    ]);
    expect(own.status).toBe(1);
    expect(own.err[0]).toMatch(/^stack Own has no DeadLetterQueueUrl output/);
  });

  it('exits 4 (network) with a hint when the local run is not started', async () => {
    // Act
    const run = await runTool(main, [], { env: { LOCAL_SQS_PORT: '1' } });

    // Assess
    expect(run.status).toBe(EXIT_STATUS.network);
    expect(run.err).toEqual([
      expect.stringMatching(
        /^http:\/\/127\.0\.0\.1:1\/123456789012\/webhook-events(-dlq)?: connection refused \(start the local receiver with npm start, or pass --stack\)$/,
      ),
    ]);
  });

  it('exits 4 (network) when the queue accepts the connection and never answers', async () => {
    // Prepare
    const silent = await startSilentEndpoint();
    try {
      // Act
      const run = await runTool(main, ['--dry-run'], {
        env: { LOCAL_SQS_PORT: new URL(silent.url).port },
        networkTimeoutMs: 400,
      });

      // Assess
      expect(run.status).toBe(EXIT_STATUS.network);
      expect(run.err).toEqual([
        `${silent.url}/123456789012/webhook-events-dlq: no answer within 0.4 s`,
      ]);
      expect(silent.connections()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  });

  it.each([
    [['--max', '0'], /--max must be a whole number of messages from 1, got '0'/],
    [['--max', 'all'], /--max must be a whole number/],
    [['--stack', ''], /--stack needs the name of a deployed stack/],
    [['--queue', 'x'], /Unknown option '--queue'/],
  ])('exits 2 on %j', async (args, message) => {
    // Act
    const run = await runTool(main, args);

    // Assess
    expect(run.status).toBe(2);
    expect(run.err[0]).toMatch(message);
  });
});
