import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { type LocalQueues, startLocalQueues } from '../../local/local-queues.js';
import { rawRequest } from '../support/raw-request.js';

const JSON_TYPE = 'application/x-amz-json-1.0';
const FORM_TYPE = 'application/x-www-form-urlencoded';

describe('Function: startLocalQueues (malformed calls)', () => {
  let queues: LocalQueues;
  let failures: unknown[];

  beforeEach(async () => {
    failures = [];
    queues = await startLocalQueues({ port: 0, onRequestError: (error) => failures.push(error) });
  });
  afterEach(async () => {
    await queues.shutdown();
  });

  /** Sends one message through the SDK and reads it back: the queue still serves. */
  async function stillServes(): Promise<string | undefined> {
    const client = sqsClientFor(queues.queueUrl);
    try {
      await client.send(
        new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: 'after' }),
      );
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.queueUrl, WaitTimeSeconds: 1 }),
      );
      return Messages[0]?.Body;
    } finally {
      client.destroy();
    }
  }

  it.each([
    {
      name: 'a JSON call whose body is null',
      headers: { 'content-type': JSON_TYPE, 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: 'null',
      type: 'com.amazon.coral.service#SerializationException',
    },
    {
      name: 'a JSON call whose body is an array',
      headers: { 'content-type': JSON_TYPE, 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: '[]',
      type: 'com.amazon.coral.service#SerializationException',
    },
    {
      name: 'a JSON call without X-Amz-Target',
      headers: { 'content-type': JSON_TYPE },
      body: '{}',
      type: 'com.amazon.coral.service#UnknownOperationException',
    },
    {
      name: 'a JSON call whose X-Amz-Target names no operation',
      headers: { 'content-type': JSON_TYPE, 'x-amz-target': 'AmazonSQS' },
      body: '{}',
      type: 'com.amazon.coral.service#UnknownOperationException',
    },
  ])(
    'answers $name 400 in the JSON error shape, and goes on serving',
    async ({ headers, body, type }) => {
      // Act
      const answer = await rawRequest(queues.endpoint, { method: 'POST', headers, body });
      const after = await stillServes();

      // Assess
      expect(answer.status).toBe(400);
      expect(answer.type).toBe(JSON_TYPE);
      expect(JSON.parse(answer.body)).toMatchObject({ __type: type });
      expect(after).toBe('after');
      expect(failures).toEqual([]);
    },
  );

  it.each([
    ['a list index of a hundred million', 'Action=ListQueues&QueueNamePrefix.99999999=x'],
    ['a list index written as an exponent', 'Action=ListQueues&AttributeName.1e8=x'],
    ['a name part __proto__', 'Action=ListQueues&__proto__.polluted=yes'],
    ['a name part __proto__ below another', 'Action=ListQueues&x.__proto__.polluted=yes'],
    ['a name nested 20,000 levels', `Action=ListQueues&a${'.1'.repeat(20_000)}=x`],
  ])(
    'answers a query call with %s 400 in the XML error shape, and changes no object of the process',
    async (_name, body) => {
      // Act
      const answer = await rawRequest(queues.endpoint, {
        method: 'POST',
        headers: { 'content-type': FORM_TYPE },
        body,
      });
      const after = await stillServes();

      // Assess
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('<Code>MalformedQueryString</Code>');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(after).toBe('after');
    },
  );

  it('answers a well-formed query call as before', async () => {
    // Act
    const answer = await rawRequest(queues.endpoint, {
      method: 'POST',
      headers: { 'content-type': FORM_TYPE },
      body: 'Action=ListQueues&QueueNamePrefix=webhook',
    });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(queues.queueUrl);
  });
});
