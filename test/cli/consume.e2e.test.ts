import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/consume.js';
import { buildBookingPayload } from '../../devkit/booking-payload.js';
import { sqsClientFor } from '../../devkit/sqs-client.js';
import { type LocalQueues, startLocalQueues } from '../../local/local-queues.js';
import { runTool, type ToolRun, type ToolRunOptions } from '../devkit/run-tool.js';
import { terminalControlsIn } from '../support/terminal-controls.js';

let queues: LocalQueues;
let sqs: SQSClient;

beforeAll(async () => {
  queues = await startLocalQueues({ port: 0 });
  sqs = sqsClientFor(queues.queueUrl);
});

afterAll(async () => {
  await queues.close();
});

beforeEach(async () => {
  expect(await queueDepth()).toBe(0);
});

async function queueDepth(): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queues.queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

/** Queues `body` as the receiver does, with the `endpoint` attribute when one is given. */
async function enqueue(body: string, event = 'event_booked', endpoint?: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queues.queueUrl,
      MessageBody: body,
      MessageAttributes: {
        event: { DataType: 'String', StringValue: event },
        ...(endpoint === undefined
          ? {}
          : { endpoint: { DataType: 'String', StringValue: endpoint } }),
      },
    }),
  );
}

/** Runs consume in-process; `stop` ends a --follow run. */
function consume(
  args: string[],
  options: ToolRunOptions & { stop?: AbortSignal } = {},
): Promise<ToolRun> {
  return runTool((toolArgs, io) => main(toolArgs, io, options.stop), args, options);
}

const fixedBooking = (id: string): string =>
  buildBookingPayload({ random: () => 0, now: new Date('2026-03-01T10:00:00Z') }).replace(
    /"id":"\d{6}"/,
    `"id":"${id}"`,
  );

describe('Function: main (consume)', () => {
  it('prints each booking on one line and leaves the queue empty', async () => {
    // Prepare
    await enqueue(fixedBooking('100001'));
    await enqueue(fixedBooking('100002'));

    // Act
    const result = await consume(['--queue-url', queues.queueUrl]);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out.sort()).toEqual(
      ['100001', '100002'].map(
        (id) =>
          `booking ${id} | event_booked | "Sunrise Yoga in the Park" | user 10000 Zoë Martin <zoe.martin@example.com> | session 2026-03-03 09:00:00 - 2026-03-03 10:30:00 | cost €12.50`,
      ),
    );
    expect(result.err).toEqual([`2 messages received and deleted from ${queues.queueUrl}`]);
    expect(await queueDepth()).toBe(0);
  });

  it('prints one JSON line per message with the body exactly as queued under --json', async () => {
    // Prepare
    const body = '{\r\n  "event": "event_booked",\r\n  "note": "caf\\u00e9 \\/ bar"\r\n}';
    await enqueue(body);

    // Act
    const result = await consume(['--queue-url', queues.queueUrl, '--json']);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toHaveLength(1);
    expect(JSON.parse(result.out[0] ?? '')).toEqual({
      messageId: expect.any(String),
      receiveCount: 1,
      attributes: { event: 'event_booked' },
      body,
    });
  });

  it('prints the endpoint each message was sent to, and --json carries it', async () => {
    // Prepare
    await enqueue(fixedBooking('100003'), 'event_booked', 'eu');
    await enqueue(fixedBooking('100004'), 'event_booked', 'us-west');

    // Act
    const pretty = await consume(['--queue-url', queues.queueUrl]);
    await enqueue(fixedBooking('100005'), 'event_booked', 'eu');
    const json = await consume(['--queue-url', queues.queueUrl, '--json']);

    // Assess
    expect(pretty.out.map((line) => line.split(' | event_booked')[0]).sort()).toEqual([
      'endpoint eu | booking 100003',
      'endpoint us-west | booking 100004',
    ]);
    expect(JSON.parse(json.out[0] ?? '')).toMatchObject({
      endpoint: 'eu',
      attributes: { event: 'event_booked', endpoint: 'eu' },
    });
  });

  it("shows a booking's text as typed but never obeys an escape sequence in it", async () => {
    // Prepare: a booking as the service signs it (JSON escapes the controls, so the receiver
    // queues it), whose user typed a title change, a line erase and a fake booking line.
    const booking = JSON.parse(fixedBooking('100006')) as { data: { user: { name: string } } };
    booking.data.user.name = 'Eve\u001b]0;PWNED\u0007\u001b[2K\r\u001b[31mfake line';
    await enqueue(JSON.stringify(booking));

    // Act
    const result = await consume(['--queue-url', queues.queueUrl]);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toHaveLength(1);
    expect(terminalControlsIn(result.out[0] ?? '')).toEqual([]);
    expect(result.out[0]).toContain(
      '| user 10000 Eve\\u001b]0;PWNED\\u0007\\u001b[2K\\u000d\\u001b[31mfake line <zoe.martin@example.com> |',
    );
  });

  it('shows an event attribute with a carriage return, a C1 CSI and a bidi override escaped, pretty or --json', async () => {
    // Prepare: characters SQS takes in an attribute, which FORWARD_EVENTS=* forwards as is.
    const event = 'event_x\r\u009b2K\u202efake';
    const body = JSON.stringify({ event, data: { id: '7' } });
    await enqueue(body, event);

    // Act
    const pretty = await consume(['--queue-url', queues.queueUrl]);
    await enqueue(body, event);
    const json = await consume(['--queue-url', queues.queueUrl, '--json']);

    // Assess
    expect(terminalControlsIn([...pretty.out, ...json.out].join(''))).toEqual([]);
    expect(pretty.out[0]).toMatch(
      /^message \S+ \| event_x\\u000d\\u009b2K\\u202efake \| not an event_booked/,
    );
    expect(JSON.parse(json.out[0] ?? '')).toMatchObject({ attributes: { event }, body });
  });

  it('shows why a message is not a booking, and still deletes it', async () => {
    // Prepare
    await enqueue('{"event":"event_cancelled","data":{"id":"7"}}', 'event_cancelled');

    // Act
    const result = await consume(['--queue-url', queues.queueUrl]);

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toEqual([
      expect.stringMatching(
        /^message \S+ \| event_cancelled \| not an event_booked payload \(.*event.*\) \| \{"event":"event_cancelled"/,
      ),
    ]);
    expect(await queueDepth()).toBe(0);
  });

  it('reads the local queue on LOCAL_SQS_PORT when no --queue-url is given', async () => {
    // Prepare
    await enqueue(fixedBooking('100003'));

    // Act
    const result = await consume([], { env: { LOCAL_SQS_PORT: String(queues.port) } });

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toEqual([expect.stringContaining('booking 100003')]);
  });

  it('reads the local dead-letter queue under --dlq', async () => {
    // Prepare
    await sqs.send(
      new SendMessageCommand({ QueueUrl: queues.dlqUrl, MessageBody: fixedBooking('100009') }),
    );

    // Act
    const result = await consume(['--dlq'], { env: { LOCAL_SQS_PORT: String(queues.port) } });

    // Assess
    expect(result.status).toBe(0);
    expect(result.out).toEqual([expect.stringContaining('booking 100009')]);
    expect(result.err.at(-1)).toContain('webhook-events-dlq');
  });

  it('prints a message once although a receive leaves it invisible for the deployed visibility timeout', async () => {
    // Prepare
    await enqueue(fixedBooking('100010'));

    // Act
    const first = await consume(['--queue-url', queues.queueUrl]);
    const second = await consume(['--queue-url', queues.queueUrl]);

    // Assess
    expect(first.out).toEqual([expect.stringContaining('booking 100010')]);
    expect(second.out).toEqual([]);
  });

  it.each([
    [
      'ENOSPC',
      1,
      [
        /^Could not write the output \(ENOSPC\): stopped after 2 messages written and deleted; the 3 not written are in the queue again$/,
      ],
    ],
    ['EPIPE', 0, []],
  ] as const)(
    'deletes only the lines it wrote when a write fails with %s',
    async (code, status, err) => {
      // Prepare
      for (const id of ['100021', '100022', '100023', '100024', '100025']) {
        await enqueue(fixedBooking(id));
      }
      const out: string[] = [];
      const writeOut = async (line: string): Promise<void> => {
        if (out.length === 2) throw Object.assign(new Error(`write ${code}`), { code });
        out.push(line);
      };

      // Act
      const result = await consume(['--queue-url', queues.queueUrl], { writeOut });

      // Assess
      expect(result.status).toBe(status);
      expect(result.err).toEqual(err.map((line) => expect.stringMatching(line)));
      expect(out).toHaveLength(2);
      const left = await consume(['--queue-url', queues.queueUrl]);
      expect(left.out).toHaveLength(3);
      expect([...out, ...left.out].map((line) => /booking (\d+)/.exec(line)?.[1]).sort()).toEqual([
        '100021',
        '100022',
        '100023',
        '100024',
        '100025',
      ]);
    },
  );

  it('keeps receiving under --follow until stopped, then exits 0', async () => {
    // Prepare
    const stop = new AbortController();
    const out: string[] = [];
    const running = consume(['--queue-url', queues.queueUrl, '--follow'], {
      stop: stop.signal,
      out,
    });

    // Act
    await enqueue(fixedBooking('100004'));
    await vi.waitFor(() => expect(out).toHaveLength(1), { timeout: 10_000 });
    await enqueue(fixedBooking('100005'));
    await vi.waitFor(() => expect(out).toHaveLength(2), { timeout: 10_000 });
    stop.abort();
    const result = await running;

    // Assess
    expect(result.status).toBe(0);
    expect(out.join('\n')).toMatch(/booking 100004[\s\S]*booking 100005/);
    expect(await queueDepth()).toBe(0);
  });

  it('exits 4 with a hint when no queue server answers', async () => {
    // Act
    const result = await consume(['--queue-url', 'http://127.0.0.1:1/123456789012/webhook-events']);

    // Assess
    expect(result.status).toBe(4);
    expect(result.err).toEqual([
      expect.stringContaining('start the local receiver with npm start'),
    ]);
  });

  it('prints a --queue-url without its password', async () => {
    // Act
    const result = await consume([
      '--queue-url',
      'http://user:hunter2@127.0.0.1:1/123456789012/webhook-events',
    ]);

    // Assess
    expect(result.status).toBe(4);
    expect(result.err).toEqual([
      'Could not read http://***@127.0.0.1:1/123456789012/webhook-events: connection refused (start the local receiver with npm start, or pass --queue-url)',
    ]);
  });

  it('exits 1 naming the URL when the queue does not exist', async () => {
    // Act
    const result = await consume(['--queue-url', `${queues.endpoint}/123456789012/no-such-queue`]);

    // Assess
    expect(result.status).toBe(1);
    expect(result.err).toEqual([expect.stringContaining('No queue at')]);
  });

  it.each([[['--queue-url', 'not a url']], [['--bogus']], [['extra']]])(
    'exits 2 on the usage error %j',
    async (args) => {
      // Act
      const result = await consume(args);

      // Assess
      expect(result.status).toBe(2);
      expect(result.err[0]).toContain('--help');
    },
  );
});
