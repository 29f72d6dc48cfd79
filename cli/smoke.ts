/**
 * `npm run smoke`: one signed booking through a deployed receiver, end to end. It reads the
 * stack's outputs, signs a booking with the secret's AWSCURRENT key, POSTs it to the webhook URL,
 * then waits until the booking is seen: in the example consumer's log when the stack deploys the
 * consumer (which deletes queue messages, so waiting in the queue would race it), else in the
 * queue, where it deletes only its own message.
 * @module
 */
import { randomInt } from 'node:crypto';
import { buildBookingPayload } from '../devkit/booking-payload.js';
import { EXIT_STATUS, EXIT_STATUS_USAGE } from '../devkit/exit-status.js';
import { withTimeout } from '../devkit/network.js';
import { postWebhook } from '../devkit/post-webhook.js';
import { readSecretIdKey } from '../devkit/signing-key.js';
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
import { resolveTarget, type TargetOptions } from './smoke/target.js';
import { waitInLog } from './smoke/wait-in-log.js';
import { refuseBusyQueue, waitInQueue } from './smoke/wait-in-queue.js';
import { SmokeFailedError, type SmokeWatch } from './smoke/watch.js';

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

interface SmokeOptions extends TargetOptions {
  readonly timeoutMs: number;
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
