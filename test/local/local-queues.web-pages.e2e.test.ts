import { request } from 'node:http';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { DLQ_NAME, QUEUE_NAME } from '../../devkit/local-run.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { type LocalQueues, startLocalQueues, WEB_PAGE_REFUSAL } from '../../local/local-queues.js';

/** A booking the test puts into the queue through the SDK, as the receiver does. */
const PLANTED = '{"event":"event_booked","data":{"id":1}}';

/** What a web page's form (or `fetch` with `mode: 'no-cors'`) posts: SQS's query protocol. */
function formBody(action: string, queueUrl: string): string {
  return new URLSearchParams({
    Action: action,
    QueueUrl: queueUrl,
    MessageBody: 'forged',
  }).toString();
}

/** Sends one raw request to the queue's port; resolves with its status and body. */
function send(
  queues: LocalQueues,
  options: { method?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolveAnswer, reject) => {
    const outgoing = request(
      queues.queueUrl,
      { method: options.method ?? 'POST', headers: options.headers },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** The queues as the SDK sees them: do both exist, and what does the main queue hold. */
async function queueState(queues: LocalQueues) {
  const client = sqsClientFor(queues.queueUrl);
  try {
    const exists = async (QueueName: string) => {
      try {
        await client.send(new GetQueueUrlCommand({ QueueName }));
        return true;
      } catch {
        return false;
      }
    };
    const names = { main: await exists(QUEUE_NAME), dlq: await exists(DLQ_NAME) };
    if (!names.main) return { ...names, count: undefined, bodies: [] };
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: queues.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    const { Messages = [] } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, MaxNumberOfMessages: 10 }),
    );
    return {
      ...names,
      count: Attributes?.ApproximateNumberOfMessages,
      bodies: Messages.map((message) => message.Body),
    };
  } finally {
    client.destroy();
  }
}

describe('Function: startLocalQueues (requests from web pages)', () => {
  let queues: LocalQueues | undefined;

  afterEach(async () => {
    await queues?.shutdown();
    queues = undefined;
  });

  const startWithPlantedMessage = async (): Promise<LocalQueues> => {
    queues = await startLocalQueues({ port: 0 });
    const client = sqsClientFor(queues.queueUrl);
    await client.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: PLANTED }));
    client.destroy();
    return queues;
  };

  const FORM = 'application/x-www-form-urlencoded';
  const evilHost = (port: number) => `evil.example:${port}`;
  const loopbackHost = (port: number) => `127.0.0.1:${port}`;

  it.each([
    ['a cross-origin SendMessage form post', 'SendMessage', 'http://evil.example', loopbackHost],
    ['a cross-origin PurgeQueue form post', 'PurgeQueue', 'http://evil.example', loopbackHost],
    ['a cross-origin DeleteQueue form post', 'DeleteQueue', 'http://evil.example', loopbackHost],
    ['a SendMessage from a sandboxed page (Origin: null)', 'SendMessage', 'null', loopbackHost],
    ['a SendMessage through DNS rebinding (no Origin)', 'SendMessage', undefined, evilHost],
    ['a DeleteQueue through DNS rebinding (no Origin)', 'DeleteQueue', undefined, evilHost],
  ] as const)('refuses %s with 403 and changes nothing', async (_name, action, origin, host) => {
    // Prepare
    const started = await startWithPlantedMessage();

    // Act
    const answer = await send(started, {
      headers: {
        host: host(started.port),
        'content-type': FORM,
        ...(origin === undefined ? {} : { origin }),
      },
      body: formBody(action, started.queueUrl),
    });
    const after = await queueState(started);

    // Assess
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ __type: 'AccessDenied', message: WEB_PAGE_REFUSAL });
    expect(after).toEqual({ main: true, dlq: true, count: '1', bodies: [PLANTED] });
  });

  it('refuses the preflight a page sends before a JSON-protocol call', async () => {
    // Prepare
    const started = await startWithPlantedMessage();

    // Act
    const answer = await send(started, {
      method: 'OPTIONS',
      headers: {
        host: loopbackHost(started.port),
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-amz-target',
      },
    });

    // Assess
    expect(answer.status).toBe(403);
  });

  it.each([
    ['127.0.0.1', loopbackHost],
    ['localhost', (port: number) => `localhost:${port}`],
    ['[::1]', (port: number) => `[::1]:${port}`],
  ] as const)(
    'answers the same form post addressed to %s without Origin, as a tool sends it',
    async (_name, host) => {
      // Prepare
      const started = await startWithPlantedMessage();

      // Act
      const answer = await send(started, {
        headers: { host: host(started.port), 'content-type': FORM },
        body: formBody('SendMessage', started.queueUrl),
      });
      const after = await queueState(started);

      // Assess
      expect(answer.status).toBe(200);
      expect(after.count).toBe('2');
      expect(after.bodies.sort()).toEqual(['forged', PLANTED].sort());
    },
  );
});
