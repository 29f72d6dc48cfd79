/**
 * `npm run smoke`: one signed booking through a deployed receiver, end to end. It reads the
 * stack's outputs, signs a booking with the secret's AWSCURRENT key, POSTs it to the webhook URL,
 * then waits until the booking is seen: in the example consumer's log when the stack deploys the
 * consumer (which deletes queue messages, so waiting in the queue would race it), else in the
 * queue, where it deletes only its own message.
 * @module
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE, ToolError } from '../devkit/exit-status.js';
import { withTimeout } from '../devkit/network.js';
import { postWebhook } from '../devkit/post-webhook.js';
import { readSecretIdKey } from '../devkit/signing-key.js';
import { isLoopbackUrl, sqsClientFor } from '../devkit/sqs-client.js';
import {
  awsStep,
  type EndpointOutput,
  endpointUrl,
  lookupEndpointSecretArn,
  readStackOutputs,
  type StackOutputs,
} from '../devkit/stack-outputs.js';
import { terminalSafe } from '../devkit/terminal-text.js';
import {
  isEntryPoint,
  isHttpUrl,
  parseToolArgs,
  processIo,
  runTool,
  type ToolIo,
  UsageError,
  urlWithoutPassword,
} from '../devkit/tool-io.js';
import {
  DEFAULT_STACK_NAME,
  ENDPOINT_NAME_RULE,
  isEndpointName,
  STACK_OUTPUTS,
} from '../lambda/contract/endpoints.js';
import { signPayload } from '../lambda/core/index.js';

/** How long `smoke` waits for the booking by default: Lambda's batching plus log delivery. */
export const DEFAULT_SMOKE_TIMEOUT_SECONDS = 60;

/** The longest `--timeout`: messages held while waiting stay within SQS's 12-hour visibility limit. */
const MAX_SMOKE_TIMEOUT_SECONDS = 3600;

const USAGE = `Usage: npm run smoke -- [--stack NAME] [--endpoint NAME] [--timeout SECONDS]
         [--url URL] [--secret-id ID] [--queue-url URL | --log-group NAME]

Sends one signed booking to a deployed receiver and waits until it is seen: in the example
consumer's log group when the stack deploys the consumer (output ${STACK_OUTPUTS.consumerLogGroupName}), else in
the queue (output ${STACK_OUTPUTS.queueUrl}), where only the smoke booking is deleted and every other message is
made visible again as soon as the smoke ends. A queue where other messages already wait is refused
before anything is sent: waiting would receive each of them once more, towards the dead-letter
queue. Prints one line per step and ends with
"smoke ok: 200 in <ms> ms, queued, seen by <queue|consumer> after <ms> ms".

  --stack NAME        the deployed stack whose outputs are read (default ${DEFAULT_STACK_NAME})
  --endpoint NAME     endpoint NAME of a stack deployed with -c endpoints=...: its outputs
                      ${STACK_OUTPUTS.webhookUrl}<Name> and ${STACK_OUTPUTS.secretArn}<Name>
  --timeout SECONDS   how long to wait for the booking, counted from the POST
                      (default ${DEFAULT_SMOKE_TIMEOUT_SECONDS}, at most ${MAX_SMOKE_TIMEOUT_SECONDS})
  --url URL           POST here instead of the stack's ${STACK_OUTPUTS.webhookUrl} output
  --secret-id ID      sign with this secret's AWSCURRENT key instead of the ${STACK_OUTPUTS.secretArn} output's
  --queue-url URL     wait in this queue instead (e.g. npm start's local queue)
  --log-group NAME    wait for a log event holding the booking id in this log group instead
                      (your own consumer's, if it logs the booking id)
  --help              show this help

The stack is read only for what no option gives. The booking is a generated event_booked with
source "sandbox" and a 17-digit booking id; your consumer processes it like any other.
AWS credentials and region come from the usual AWS environment (AWS_PROFILE, AWS_REGION, ...);
the calls it makes and the permissions they need are in docs/deploy.md.

${EXIT_STATUS_USAGE}
Here 1 also means: the receiver answered other than 200 queued, or the booking was not seen
within --timeout.`;

/** Where the smoke booking is waited for. */
export type SmokeWatch =
  | { readonly kind: 'queue'; readonly queueUrl: string }
  | { readonly kind: 'consumer'; readonly logGroupName: string };

/** What one smoke run sends, and where to. */
interface SmokeTarget {
  readonly url: string;
  readonly secretId: string;
  readonly watch: SmokeWatch;
}

interface SmokeOptions {
  readonly stackName: string;
  readonly endpoint: string | undefined;
  readonly timeoutMs: number;
  readonly url: string | undefined;
  readonly secretId: string | undefined;
  readonly watch: SmokeWatch | undefined;
}

/** The smoke failed after the receiver was reached: refused, ignored, or never seen (exit 1). */
export class SmokeFailedError extends ToolError {
  /** @param message - what failed, starting `smoke failed:` */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/**
 * Runs the tool with command-line `args`; resolves with the exit status.
 *
 * @param args - arguments after `--`
 * @param io - streams, environment and working directory
 * @param stop - ends the wait early (the entry point aborts it on Ctrl-C); held queue messages are
 *   released first
 */
export function main(
  args: readonly string[],
  io: ToolIo,
  stop: AbortSignal = new AbortController().signal,
): Promise<number> {
  return runTool(
    io,
    { name: 'smoke', usage: USAGE },
    () => parseOptions(args),
    (options) => smoke(options, io, stop),
  );
}

async function smoke(options: SmokeOptions, io: ToolIo, stop: AbortSignal): Promise<number> {
  const target = await resolveTarget(options, io);
  io.out(`receiver: ${urlWithoutPassword(target.url)}`);
  io.out(`key: AWSCURRENT of ${target.secretId}`);
  io.out(`waiting in: ${describeWatch(target.watch)}`);
  if (target.watch.kind === 'queue') await refuseBusyQueue(target.watch.queueUrl, io);
  const { key } = await readSecretIdKey(target.secretId, io);

  const bookingId = smokeBookingId();
  const body = Buffer.from(buildBookingPayload({ bookingId }));
  const sentAt = Date.now();
  const response = await withTimeout(
    `POST ${urlWithoutPassword(target.url)} failed`,
    io.networkTimeoutMs,
    (signal) =>
      postWebhook(target.url, body, signPayload(body, key, Math.floor(sentAt / 1000)), signal),
    { refusedHint: 'is the receiver running at this URL?' },
  );
  const answerMs = Date.now() - sentAt;
  // Whatever answers at the URL wrote it: printed, never obeyed.
  const answer = terminalSafe(response.body);
  io.out(
    `POST booking ${bookingId} (event_booked) -> ${response.status} ${answer} in ${answerMs} ms`,
  );
  if (response.status !== 200) {
    throw new SmokeFailedError(
      `smoke failed: the receiver answered ${response.status} in ${answerMs} ms${refusalHint(response.status)}`,
    );
  }
  if (!isQueuedAnswer(response.body)) {
    throw new SmokeFailedError(
      `smoke failed: the receiver answered 200 ${answer}, not {"status":"queued"}: FORWARD_EVENTS does not forward event_booked, so nothing was queued`,
    );
  }

  const deadline = sentAt + options.timeoutMs;
  const seen =
    target.watch.kind === 'queue'
      ? await waitInQueue(target.watch.queueUrl, body.toString('utf8'), deadline, io, stop)
      : await waitInLog(target.watch.logGroupName, bookingId, sentAt, deadline, io, stop);
  if (!seen) {
    throw new SmokeFailedError(
      `smoke failed: 200 in ${answerMs} ms, queued, but booking ${bookingId} was not seen in ${describeWatch(target.watch)} within ${options.timeoutMs / 1000} s${stop.aborted ? ' (stopped)' : ''}${notSeenHint(target.watch)}`,
    );
  }
  const seenMs = Date.now() - sentAt;
  io.out(
    `smoke ok: 200 in ${answerMs} ms, queued, seen by ${target.watch.kind} after ${seenMs} ms`,
  );
  return EXIT_STATUS.ok;
}

/**
 * A booking id no real booking has: the service's ids are short numeric text; 17 digits from the
 * clock and a random part keep concurrent smoke runs apart too.
 */
function smokeBookingId(): string {
  return `${Date.now()}${String(randomInt(10_000)).padStart(4, '0')}`;
}

function isQueuedAnswer(body: string): boolean {
  try {
    return (JSON.parse(body) as { status?: unknown }).status === 'queued';
  } catch {
    return false;
  }
}

function refusalHint(status: number): string {
  if (status === 401) {
    return ': the signature was refused; has the key been put into the secret, and has the receiver picked it up (SECRET_CACHE_SECONDS)?';
  }
  if (status === 404) return ': no endpoint at this path (with endpoints, pass --endpoint NAME)';
  if (status === 503)
    return ': the receiver could not load its keys or queue the call (see its log and alarms)';
  return '';
}

function notSeenHint(watch: SmokeWatch): string {
  return watch.kind === 'consumer'
    ? ": the example consumer logs 'Booking received' with booking_id; look for failures in its log and in the dead-letter queue"
    : ': is another consumer reading the queue? (it may have taken the message)';
}

function describeWatch(watch: SmokeWatch): string {
  return watch.kind === 'queue'
    ? `queue ${urlWithoutPassword(watch.queueUrl)}`
    : `consumer log group ${watch.logGroupName}`;
}

/**
 * The URL, secret and place to wait in: the options, then the stack's outputs for what they do
 * not give. The stack is not read when the options give everything.
 *
 * @throws {UsageError} when the stack lacks an output the run needs
 */
async function resolveTarget(options: SmokeOptions, io: ToolIo): Promise<SmokeTarget> {
  const { url, secretId, watch } = options;
  if (url !== undefined && secretId !== undefined && watch !== undefined) {
    return { url, secretId, watch };
  }
  const client = new CloudFormationClient({});
  let outputs: StackOutputs;
  try {
    outputs = await awsStep('CloudFormation', io.networkTimeoutMs, (signal) =>
      readStackOutputs(client, options.stackName, signal),
    );
  } finally {
    client.destroy();
  }
  io.out(`stack ${options.stackName}: ${outputs.values.size} outputs`);
  const found = (output: EndpointOutput) => {
    if (!output.ok) throw new UsageError(output.message);
    return output.value;
  };
  return {
    url: url ?? found(endpointUrl(outputs, options.endpoint)),
    secretId: secretId ?? found(await endpointSecretArnFromStack(outputs, options.endpoint, io)),
    watch: watch ?? watchFromStack(outputs),
  };
}

/** The endpoint's secret ARN from the stack's outputs, or from its endpoint directory. */
async function endpointSecretArnFromStack(
  outputs: StackOutputs,
  endpoint: string | undefined,
  io: ToolIo,
): Promise<EndpointOutput> {
  const secretsManager = new SecretsManagerClient({});
  try {
    return await awsStep('Secrets Manager', io.networkTimeoutMs, (signal) =>
      lookupEndpointSecretArn(outputs, endpoint, secretsManager, signal),
    );
  } finally {
    secretsManager.destroy();
  }
}

/** The consumer's log group when the stack deploys the example consumer, else its queue. */
function watchFromStack(outputs: StackOutputs): SmokeWatch {
  const logGroupName = outputs.values.get(STACK_OUTPUTS.consumerLogGroupName);
  if (logGroupName !== undefined) return { kind: 'consumer', logGroupName };
  const queueUrl = outputs.values.get(STACK_OUTPUTS.queueUrl);
  if (queueUrl !== undefined) return { kind: 'queue', queueUrl };
  throw new UsageError(
    `stack ${outputs.stackName} has neither ${STACK_OUTPUTS.consumerLogGroupName} nor ${STACK_OUTPUTS.queueUrl}: is it a webhook receiver stack?`,
  );
}

/** How often the log group is searched: FilterLogEvents allows a few calls a second per account. */
const LOG_POLL_MS = 1000;

/** Log timestamps come from Lambda's clock: a minute of skew still finds the event. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Searches the log group once a second for an event holding the booking id (the example consumer
 * logs `Booking received` with `booking_id` once it has parsed the booking) until `deadline`.
 * Needs `logs:FilterLogEvents` on the log group.
 *
 * @returns whether such an event was found
 */
async function waitInLog(
  logGroupName: string,
  bookingId: string,
  sentAt: number,
  deadline: number,
  io: ToolIo,
  stop: AbortSignal,
): Promise<boolean> {
  const client = new CloudWatchLogsClient({});
  try {
    for (;;) {
      const found = await awsStep('CloudWatch Logs', io.networkTimeoutMs, (abortSignal) =>
        findLogEvent(client, logGroupName, bookingId, sentAt - CLOCK_SKEW_MS, abortSignal),
      );
      if (found !== undefined) {
        io.out(
          `seen by consumer: log stream ${found.logStreamName ?? '?'} at ${new Date(found.timestamp ?? Date.now()).toISOString()}`,
        );
        return true;
      }
      if (!(await pauseUntil(LOG_POLL_MS, deadline, stop))) return false;
    }
  } finally {
    client.destroy();
  }
}

/** The first event since `startTime` whose text holds the booking id, every page searched. */
async function findLogEvent(
  client: CloudWatchLogsClient,
  logGroupName: string,
  bookingId: string,
  startTime: number,
  abortSignal: AbortSignal,
) {
  let nextToken: string | undefined;
  do {
    const page = await client.send(
      new FilterLogEventsCommand({
        logGroupName,
        startTime,
        // A quoted term matches the exact digits wherever they stand in the event.
        filterPattern: `"${bookingId}"`,
        ...(nextToken === undefined ? {} : { nextToken }),
      }),
      { abortSignal },
    );
    const event = page.events?.find((candidate) => candidate.message?.includes(bookingId));
    if (event !== undefined) return event;
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return undefined;
}

/**
 * Waits `ms`, or until `deadline`, whichever is sooner.
 *
 * @returns false when the deadline has passed or `stop` aborted the wait
 */
async function pauseUntil(ms: number, deadline: number, stop: AbortSignal): Promise<boolean> {
  const left = deadline - Date.now();
  if (left <= 0 || stop.aborted) return false;
  try {
    await sleep(Math.min(ms, left), undefined, { signal: stop });
  } catch {
    return false;
  }
  return Date.now() < deadline;
}

/** A queue the smoke receives from, and how long one call may take. */
interface WatchedQueue {
  readonly client: SQSClient;
  readonly url: string;
  readonly timeoutMs: number;
}

/** The embedded queue answers a short poll with every message; SQS's long poll costs nothing. */
const LOCAL_POLL_MS = 250;
const AWS_WAIT_SECONDS = 5;

/**
 * Receives from the queue until the smoke booking (matched by its exact body) arrives, then
 * deletes it, and only it. Every other message received on the way is held invisible until the
 * smoke ends and then released at once (visibility 0): releasing each straight away would have
 * the next receive return it again, counting one more receive towards the queue's
 * `maxReceiveCount` each time (5 moves it to the dead-letter queue) and never reaching the smoke
 * booking behind a backlog. Held messages are received with a visibility timeout that ends
 * shortly after `deadline`, so they come back on their own if the tool is killed. Needs
 * `sqs:ReceiveMessage`, `sqs:DeleteMessage` and `sqs:ChangeMessageVisibility` on the queue.
 *
 * @returns whether the smoke booking was received (and deleted)
 */
async function waitInQueue(
  queueUrl: string,
  body: string,
  deadline: number,
  io: ToolIo,
  stop: AbortSignal,
): Promise<boolean> {
  const queue: WatchedQueue = {
    client: sqsClientFor(queueUrl, io.env),
    url: queueUrl,
    timeoutMs: io.networkTimeoutMs,
  };
  const local = isLoopbackUrl(queueUrl);
  const held: Message[] = [];
  try {
    for (;;) {
      const leftSeconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      const waitSeconds = local ? 0 : Math.max(0, Math.min(AWS_WAIT_SECONDS, leftSeconds - 1));
      const messages = await receive(queue, waitSeconds, leftSeconds + 5);
      const own = messages.find((message) => message.Body === body);
      held.push(...messages.filter((message) => message !== own));
      if (own !== undefined) {
        await queueStep(
          queue,
          `Could not delete from ${urlWithoutPassword(queue.url)}`,
          (abortSignal) =>
            queue.client.send(
              new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: own.ReceiptHandle }),
              { abortSignal },
            ),
        );
        io.out(`seen in queue: message ${own.MessageId}, deleted`);
        return true;
      }
      const pauseMs = local && messages.length === 0 ? LOCAL_POLL_MS : 0;
      if (!(await pauseUntil(pauseMs, deadline, stop))) return false;
    }
  } finally {
    await release(queue, held, io);
    queue.client.destroy();
  }
}

/**
 * Refuses, before anything is sent, to wait in a queue where other messages wait or are being
 * processed: the wait receives every message ahead of the smoke booking, and each receive counts
 * towards the queue's `maxReceiveCount` (5 moves a message to the dead-letter queue), so smoke
 * runs against a backlog would dead-letter genuine bookings. Needs `sqs:GetQueueAttributes`.
 *
 * @throws {SmokeFailedError} naming how many messages wait
 */
async function refuseBusyQueue(queueUrl: string, io: ToolIo): Promise<void> {
  const client = sqsClientFor(queueUrl, io.env);
  try {
    const { Attributes = {} } = await withTimeout(
      `Could not read the attributes of ${urlWithoutPassword(queueUrl)}`,
      io.networkTimeoutMs,
      (abortSignal) =>
        client.send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
            ],
          }),
          { abortSignal },
        ),
    );
    const waiting =
      Number(Attributes.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
    if (waiting > 0) {
      throw new SmokeFailedError(
        `smoke failed: ${waiting} other message(s) wait in ${urlWithoutPassword(queueUrl)}, and waiting there would receive each of them once more (5 receives move a message to the dead-letter queue); nothing was sent: consume them first, or wait in a log group with --log-group`,
      );
    }
  } finally {
    client.destroy();
  }
}

async function receive(
  queue: WatchedQueue,
  waitSeconds: number,
  visibilitySeconds: number,
): Promise<Message[]> {
  const received = await queueStep(
    queue,
    `Could not read ${urlWithoutPassword(queue.url)}`,
    (abortSignal) =>
      queue.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: waitSeconds,
          VisibilityTimeout: visibilitySeconds,
        }),
        { abortSignal },
      ),
    waitSeconds * 1000,
  );
  return received.Messages ?? [];
}

/**
 * Makes the held messages visible again, ten per call. A failure is reported, not fatal: they
 * come back by themselves when their visibility timeout ends.
 */
async function release(queue: WatchedQueue, held: readonly Message[], io: ToolIo): Promise<void> {
  if (held.length === 0) return;
  let failed = 0;
  for (let start = 0; start < held.length; start += 10) {
    const batch = held.slice(start, start + 10);
    try {
      const result = await queueStep(
        queue,
        `Could not release messages in ${urlWithoutPassword(queue.url)}`,
        (abortSignal) =>
          queue.client.send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queue.url,
              Entries: batch.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle,
                VisibilityTimeout: 0,
              })),
            }),
            { abortSignal },
          ),
      );
      failed += result.Failed?.length ?? 0;
    } catch {
      failed += batch.length;
    }
  }
  io.out(
    `released ${held.length - failed} other message(s), visible again in ${urlWithoutPassword(queue.url)}`,
  );
  if (failed > 0) {
    io.err(
      `${failed} other message(s) could not be released: they become visible again within --timeout + 5 s`,
    );
  }
}

/** One call to the queue within the network timeout (plus a long poll's wait); refusals are exit 1. */
function queueStep<T>(
  queue: WatchedQueue,
  what: string,
  call: (signal: AbortSignal) => Promise<T>,
  waitMs = 0,
): Promise<T> {
  return awsStep(what, waitMs + queue.timeoutMs, call);
}

function parseOptions(args: readonly string[]): SmokeOptions | 'help' {
  const values = parseToolArgs(args, {
    stack: { type: 'string' },
    endpoint: { type: 'string' },
    timeout: { type: 'string' },
    url: { type: 'string' },
    'secret-id': { type: 'string' },
    'queue-url': { type: 'string' },
    'log-group': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const { endpoint, url } = values;
  if (endpoint !== undefined && !isEndpointName(endpoint)) {
    throw new UsageError(`unknown endpoint '${endpoint}': a name is ${ENDPOINT_NAME_RULE}`);
  }
  if (url !== undefined && !isHttpUrl(url)) {
    throw new UsageError(`--url must be an http(s) URL, got '${urlWithoutPassword(url)}'`);
  }
  const queueUrl = values['queue-url'];
  const logGroupName = values['log-group'];
  if (queueUrl !== undefined && logGroupName !== undefined) {
    throw new UsageError('give --queue-url or --log-group, not both');
  }
  if (queueUrl !== undefined && !isHttpUrl(queueUrl)) {
    throw new UsageError(
      `--queue-url must be an http(s) SQS queue URL, got '${urlWithoutPassword(queueUrl)}'`,
    );
  }
  const timeoutText = values.timeout ?? String(DEFAULT_SMOKE_TIMEOUT_SECONDS);
  if (
    !/^\d{1,4}$/.test(timeoutText) ||
    !(Number(timeoutText) >= 1 && Number(timeoutText) <= MAX_SMOKE_TIMEOUT_SECONDS)
  ) {
    throw new UsageError(
      `--timeout must be a whole number of seconds from 1 to ${MAX_SMOKE_TIMEOUT_SECONDS}, got '${timeoutText}'`,
    );
  }
  return {
    stackName: values.stack || DEFAULT_STACK_NAME,
    endpoint,
    timeoutMs: Number(timeoutText) * 1000,
    url,
    secretId: values['secret-id'],
    watch:
      queueUrl !== undefined
        ? { kind: 'queue', queueUrl }
        : logGroupName !== undefined
          ? { kind: 'consumer', logGroupName }
          : undefined,
  };
}

if (isEntryPoint(import.meta.url)) {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), processIo(), stop.signal);
}
