/**
 * `npm run consume`: receive, print and delete what the receiver queued, from the local queue of
 * `npm start` or the deployed one.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../devkit/exit-status.js';
import {
  DLQ_NAME,
  LOCAL_PORTS,
  localPort,
  localQueueUrl,
  QUEUE_NAME,
} from '../devkit/local-run.js';
import { withTimeout } from '../devkit/network.js';
import { isLoopbackUrl, sqsClientFor } from '../devkit/sqs-client.js';
import {
  isClosedPipe,
  isEntryPoint,
  isHttpUrl,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
  urlWithoutPassword,
  writeLine,
} from '../devkit/tool-io.js';
import { formatJson, formatPretty } from './consume/message-lines.js';

/** SQS kept messages that `consume` printed and asked to delete (they will be received again). */
export class QueueDeleteError extends ToolError {
  /** @param message - how many messages SQS kept and its first reason */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/** `consume` could not write a message's line: it deleted only what it had written. */
export class OutputError extends ToolError {
  /** @param message - what could not be written and what became of the messages */
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, EXIT_STATUS.refused, options);
  }
}

const USAGE = `Usage: npm run consume -- [--queue-url URL | --dlq] [--follow] [--json]

Receives the webhook events the receiver queued, prints them and deletes them.

  --queue-url URL   queue to read (default: the local queue of npm start,
                    http://127.0.0.1:$${LOCAL_PORTS.queue.variable}/123456789012/webhook-events, port default ${LOCAL_PORTS.queue.default});
                    for a deployed stack use its QueueUrl output (normal AWS credentials apply)
  --dlq             read the local dead-letter queue (webhook-events-dlq) instead: messages
                    received 5 times without being deleted; for a deployed stack pass its
                    DeadLetterQueueUrl output as --queue-url
  --follow          keep waiting for new messages until Ctrl-C (default: empty the queue and exit)
  --json            print each message as one JSON line: messageId, endpoint (when the receiver
                    serves several), attributes, body (exact text)

Each message shows the endpoint it was sent to (its endpoint attribute) when the receiver serves
several endpoints (ENDPOINTS locally, the construct's endpoints when deployed).
  --help            show this help

${EXIT_STATUS_USAGE}`;

/** How to poll a queue: seconds to long-poll, and a pause after an empty receive while following. */
interface Polling {
  readonly drainWaitSeconds: number;
  readonly followWaitSeconds: number;
  readonly idlePauseMs: number;
}

/**
 * SQS returns a long poll as soon as a message is there, so long polls cost nothing in latency:
 * 1 s while draining (a short poll may miss messages on servers it does not sample), SQS's
 * maximum of 20 s while following.
 */
const AWS_POLLING: Polling = { drainWaitSeconds: 1, followWaitSeconds: 20, idlePauseMs: 0 };

/**
 * The embedded queue holds every message in one place, so a short poll sees them all; and its
 * long poll waits out the full time unless ten messages are ready, so following it short-polls
 * with a pause instead.
 */
const LOCAL_POLLING: Polling = { drainWaitSeconds: 0, followWaitSeconds: 0, idlePauseMs: 250 };

interface ConsumeOptions {
  readonly queueUrl: string;
  readonly follow: boolean;
  readonly json: boolean;
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status (see `exit-status.ts`).
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 * @param stop - ends `--follow` (the entry point aborts it on Ctrl-C)
 */
export function main(
  args: readonly string[],
  io: ToolIo,
  stop: AbortSignal = new AbortController().signal,
): Promise<number> {
  return runTool(
    io,
    { name: 'consume', usage: USAGE },
    () => parseOptions(args, io.env),
    (options) => consume(options, io, stop),
  );
}

async function consume(options: ConsumeOptions, io: ToolIo, stop: AbortSignal): Promise<number> {
  const queue: Queue = {
    client: sqsClientFor(options.queueUrl, io.env),
    url: options.queueUrl,
    timeoutMs: io.networkTimeoutMs,
  };
  const polling = isLoopbackUrl(options.queueUrl) ? LOCAL_POLLING : AWS_POLLING;
  let count = 0;
  try {
    for (;;) {
      const waitSeconds = options.follow ? polling.followWaitSeconds : polling.drainWaitSeconds;
      const messages = await receive(queue, waitSeconds, stop);
      if (messages === undefined) break;
      if (messages.length === 0) {
        if (!options.follow || !(await pause(polling.idlePauseMs, stop))) break;
        continue;
      }
      const written = await writeMessages(messages, options, io);
      if (written.failure === undefined) {
        await deleteMessages(queue, messages);
        count += messages.length;
        continue;
      }
      return await stopWriting(queue, messages, written.messages, written.failure, count);
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(describeFailure(error, options.queueUrl), EXIT_STATUS.refused, {
      cause: error,
    });
  } finally {
    queue.client.destroy();
  }
  io.err(
    `${count} message${count === 1 ? '' : 's'} received and deleted from ${urlWithoutPassword(options.queueUrl)}`,
  );
  return EXIT_STATUS.ok;
}

/** The queue a run reads, and how long one call to it may take. */
interface Queue {
  readonly client: SQSClient;
  readonly url: string;
  /** Per call, on top of a long poll's wait. */
  readonly timeoutMs: number;
}

/**
 * One receive, long-polling `waitSeconds`; `undefined` when `stop` aborted it.
 *
 * @throws {NetworkError} when no answer came within the wait plus the timeout
 */
async function receive(
  queue: Queue,
  waitSeconds: number,
  stop: AbortSignal,
): Promise<Message[] | undefined> {
  if (stop.aborted) return undefined;
  try {
    const received = await withTimeout(
      `Could not read ${urlWithoutPassword(queue.url)}`,
      waitSeconds * 1000 + queue.timeoutMs,
      (abortSignal) =>
        queue.client.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: waitSeconds,
            MessageAttributeNames: ['All'],
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
          { abortSignal },
        ),
      { stop, refusedHint: REFUSED_HINT },
    );
    return received.Messages ?? [];
  } catch (error) {
    if (stop.aborted) return undefined;
    throw error;
  }
}

/** What to do when nothing listens at the queue's address. */
const REFUSED_HINT = 'start the local receiver with npm start, or pass --queue-url';

/** Waits `ms`; resolves `false` when `stop` aborted the wait. */
async function pause(ms: number, stop: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal: stop });
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes one line per message, each awaited, and stops at the first that cannot be written: the
 * messages before it are the ones the reader has.
 */
async function writeMessages(
  messages: readonly Message[],
  options: ConsumeOptions,
  io: ToolIo,
): Promise<{ readonly messages: readonly Message[]; readonly failure?: unknown }> {
  for (const [index, message] of messages.entries()) {
    try {
      await writeLine(io, options.json ? formatJson(message) : formatPretty(message));
    } catch (failure) {
      return { messages: messages.slice(0, index), failure };
    }
  }
  return { messages };
}

/**
 * Ends a run whose line could not be written: the messages whose lines were written are delivered
 * and deleted, the others made visible again. A reader that went away (`| head`) ends it quietly.
 *
 * @param count - messages written and deleted before this batch
 * @throws {OutputError} for any other write error
 */
async function stopWriting(
  queue: Queue,
  batch: readonly Message[],
  written: readonly Message[],
  failure: unknown,
  count: number,
): Promise<number> {
  const unwritten = batch.slice(written.length);
  const released = await release(queue, unwritten);
  await deleteMessages(queue, written);
  if (isClosedPipe(failure)) return EXIT_STATUS.ok;
  const delivered = count + written.length;
  throw new OutputError(
    `Could not write the output (${describeWriteError(failure)}): stopped after ${delivered} message${delivered === 1 ? '' : 's'} written and deleted; ` +
      (released
        ? `the ${unwritten.length} not written are in the queue again`
        : `the ${unwritten.length} not written return to the queue when their visibility timeout ends`),
    { cause: failure },
  );
}

/** `ENOSPC`, or the message of an error without a code. */
function describeWriteError(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Makes received messages visible again at once, for the next reader; resolves `false` when the
 * queue did not take that (they are then visible again when their visibility timeout ends).
 */
async function release(queue: Queue, messages: readonly Message[]): Promise<boolean> {
  if (messages.length === 0) return true;
  try {
    const result = await withTimeout(
      `Could not release messages in ${urlWithoutPassword(queue.url)}`,
      queue.timeoutMs,
      (abortSignal) =>
        queue.client.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queue.url,
            Entries: messages.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: 0,
            })),
          }),
          { abortSignal },
        ),
    );
    return (result.Failed ?? []).length === 0;
  } catch {
    return false;
  }
}

async function deleteMessages(queue: Queue, messages: readonly Message[]): Promise<void> {
  if (messages.length === 0) return;
  const result = await withTimeout(
    `Could not delete from ${urlWithoutPassword(queue.url)}`,
    queue.timeoutMs,
    (abortSignal) =>
      queue.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
        { abortSignal },
      ),
    { refusedHint: REFUSED_HINT },
  );
  const failed = result.Failed ?? [];
  if (failed.length > 0) {
    throw new QueueDeleteError(
      `could not delete ${failed.length} message(s): ${failed[0]?.Message ?? failed[0]?.Code}`,
    );
  }
}

function parseOptions(args: readonly string[], env: NodeJS.ProcessEnv): ConsumeOptions | 'help' {
  const values = parseToolArgs(args, {
    'queue-url': { type: 'string' },
    follow: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    dlq: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  if (values.dlq && values['queue-url'] !== undefined) {
    throw new UsageError('--dlq reads the local dead-letter queue; with --queue-url pass its URL');
  }
  const queueUrl =
    values['queue-url'] ??
    localQueueUrl(localPort(env, 'queue'), values.dlq ? DLQ_NAME : QUEUE_NAME);
  if (!isHttpUrl(queueUrl)) {
    throw new UsageError(
      `--queue-url must be an http(s) SQS queue URL, got '${urlWithoutPassword(queueUrl)}'`,
    );
  }
  return { queueUrl, follow: values.follow, json: values.json };
}

/** A queue's refusal in one line. */
function describeFailure(error: unknown, queueUrl: string): string {
  const name = (error as Error).name;
  if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') {
    return `No queue at ${urlWithoutPassword(queueUrl)}: check --queue-url (the stack's QueueUrl output)`;
  }
  return `Could not read ${urlWithoutPassword(queueUrl)}: ${(error as Error).message}`;
}

if (isEntryPoint(import.meta.url)) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), processIo(), stop.signal);
}
