/**
 * The embedded queue of `npm start`: `local-aws-sqs` on loopback with the deployed queues' settings
 * (one definition, `lambda/contract/queue-settings.ts`), and every message kept in a journal under `.local/`
 * so that what the receiver acknowledged survives a stop, a crash or SIGKILL. It answers only the
 * tools and the SDK on this machine, never a web page (see {@link WEB_PAGE_REFUSAL}).
 * @module
 */
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createRequestHandler } from 'local-aws-sqs';
import {
  DLQ_NAME,
  isLoopbackHostHeader,
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  LOOPBACK,
  LOOPBACK_NAMES_TEXT,
  localQueueUrl,
  QUEUE_NAME,
} from '../devkit/local-run.js';
import { QUEUE_SETTINGS } from '../lambda/contract/queue-settings.js';
import {
  BodyBudget,
  catchRequestErrors,
  closeServer,
  continueOnlyToRead,
  LARGEST_CALLS_AT_ONCE,
  limitRequestBodies,
  listen,
  readWholeBody,
  refuseConnect,
} from './net.js';
import { QueueJournal, type StoredMessage } from './queue-journal.js';
import { queueCallRefusal, SQS_JSON } from './queue-requests.js';

/** Receives after which a message moves to the dead-letter queue: the deployed queue's value. */
export const MAX_RECEIVE_COUNT = QUEUE_SETTINGS.maxReceiveCount;

/** SQS's largest message, as the deployed queues use. */
const MAX_MESSAGE_SIZE = QUEUE_SETTINGS.maxMessageSizeBytes;

/**
 * Longest request body the embedded queue reads: a batch of messages as large as SQS takes in
 * one call (1 MiB in all), with room for the escapes either protocol writes (JSON writes a quote,
 * backslash or line break SQS takes as 2 bytes, a form-encoded query call any byte as at most 3)
 * and the call's other fields.
 */
const MAX_REQUEST_BYTES = 4 * MAX_MESSAGE_SIZE;

/** Options of {@link startLocalQueues}. */
export interface LocalQueuesOptions {
  /** TCP port to listen on; 0 picks a free one (the bound port is in the result). */
  readonly port: number;
  /** Local inspector hook: wraps the queue server's request listener to watch its traffic. */
  readonly tap?: (listener: RequestListener) => RequestListener;
  /**
   * Directory of the queues' journal (`npm start` uses `.local/queues`): messages stored there by
   * an earlier run are queued again. Without it the queues live in memory only.
   */
  readonly stateDir?: string;
  /** Starts with empty queues: deletes the journal in {@link LocalQueuesOptions.stateDir} first. */
  readonly fresh?: boolean;
  /**
   * Told once of each failure in one call's handling (the call is answered 500, the queue goes
   * on).
   * @default printing it on stderr
   */
  readonly onRequestError?: (error: unknown) => void;
}

/** A running embedded SQS-compatible server with the receiver's two queues. */
export interface LocalQueues {
  /** Base URL for `AWS_ENDPOINT_URL_SQS` / the SDK's `endpoint`, e.g. `http://127.0.0.1:9324`. */
  readonly endpoint: string;
  /** URL of `webhook-events`. */
  readonly queueUrl: string;
  /** URL of `webhook-events-dlq`. */
  readonly dlqUrl: string;
  /** The port actually bound. */
  readonly port: number;
  /** How many messages the journal gave back at start (0 without a journal or with `fresh`). */
  readonly restored: number;
  /** How many messages `fresh` deleted with the journal, dead-letter queue included (else 0). */
  readonly discarded: number;
  /**
   * Stops listening and drops open connections. Queue contents live in this object, not in the
   * listener: {@link LocalQueues.listen} on the same object serves the same messages again.
   */
  close(): Promise<void>;
  /** Listens again on the same port after {@link LocalQueues.close}, keeping every queued message. */
  listen(): Promise<void>;
  /** Closes the listener and the journal; the object cannot listen again. */
  shutdown(): Promise<void>;
}

/**
 * Starts `local-aws-sqs` on loopback with `webhook-events` (redriving to `webhook-events-dlq` after
 * {@link MAX_RECEIVE_COUNT} receives) and the dead-letter queue, both with the deployed visibility
 * timeout, retention and message size. With a `stateDir`, messages of the previous run are queued
 * again and every change is journaled. Rejects (instead of crashing the process) when the port is
 * taken.
 */
export async function startLocalQueues(options: LocalQueuesOptions): Promise<LocalQueues> {
  const attributes = {
    MaximumMessageSize: MAX_MESSAGE_SIZE,
    VisibilityTimeout: QUEUE_SETTINGS.visibilityTimeoutSeconds,
    MessageRetentionPeriod: QUEUE_SETTINGS.retentionPeriodSeconds,
  };
  const { service, requestHandler } = createRequestHandler({
    port: options.port,
    hostname: LOOPBACK,
    region: LOCAL_REGION,
    accountId: LOCAL_ACCOUNT_ID,
    queues: [
      {
        QueueName: DLQ_NAME,
        Attributes: {
          ...attributes,
          MessageRetentionPeriod: QUEUE_SETTINGS.deadLetterRetentionPeriodSeconds,
        },
      },
      {
        QueueName: QUEUE_NAME,
        Attributes: {
          ...attributes,
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${DLQ_NAME}`,
            maxReceiveCount: MAX_RECEIVE_COUNT,
          }),
        },
      },
    ],
  });
  const queues = service.Queues;
  for (const queue of queues) countOnlyVisibleMessages(queue);
  let journal: QueueJournal | undefined;
  let restored = 0;
  let discarded = 0;
  if (options.stateDir !== undefined) {
    const retention = {
      [QUEUE_NAME]: QUEUE_SETTINGS.retentionPeriodSeconds,
      [DLQ_NAME]: QUEUE_SETTINGS.deadLetterRetentionPeriodSeconds,
    };
    if (options.fresh) discarded = QueueJournal.erase(options.stateDir, retention);
    const opened = QueueJournal.open(options.stateDir, retention);
    journal = opened.journal;
    restored = restoreMessages(queues, opened.messages);
    for (const queue of queues) journalChanges(queue, opened.journal);
  }
  const failure = {
    onError:
      options.onRequestError ??
      ((error: unknown) =>
        console.error('The local queue failed on one call (answered 500):', error)),
    contentType: SQS_JSON,
    body: JSON.stringify({ __type: 'InternalFailure', message: 'the local queue failed' }),
  };
  // local-aws-sqs answers a call with a promise, which rejects when the call breaks it.
  const handler = catchRequestErrors(requestHandler, failure);
  const durable = journal === undefined ? handler : answerOnceDurable(handler, journal);
  // Loopback only: the embedded queue has no authentication, so it must never face a network.
  const listener = readWholeBody(options.tap?.(durable) ?? durable, refuseMalformedCalls);
  const limits = {
    maxBytes: MAX_REQUEST_BYTES,
    budget: new BodyBudget(LARGEST_CALLS_AT_ONCE * MAX_REQUEST_BYTES),
    contentType: SQS_JSON,
  };
  const server = createServer(
    catchRequestErrors(refuseWebPages(limitRequestBodies(limits, listener)), failure),
  );
  continueOnlyToRead(server);
  refuseConnect(server);
  let port: number;
  try {
    port = await listen(server, options.port, LOOPBACK);
  } catch (error) {
    await journal?.close();
    throw error;
  }
  // Queue URLs are computed from the service's port; with port 0 it only becomes known now.
  service.PORT = port;
  return {
    restored,
    discarded,
    endpoint: `http://${LOOPBACK}:${port}`,
    queueUrl: localQueueUrl(port, QUEUE_NAME),
    dlqUrl: localQueueUrl(port, DLQ_NAME),
    port,
    close: () => closeServer(server),
    listen: async () => {
      port = await listen(server, port, LOOPBACK);
    },
    shutdown: async () => {
      await closeServer(server);
      await journal?.close();
    },
  };
}

/** Answers 400 a call `local-aws-sqs` cannot take (see {@link queueCallRefusal}); true when it did. */
function refuseMalformedCalls(
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
): boolean {
  const refusal = queueCallRefusal(request.headers, body);
  if (refusal === undefined) return false;
  response.writeHead(400, { 'content-type': refusal.contentType });
  response.end(refusal.body);
  return true;
}

/** Why the embedded queue refused a request a web page could have made the browser send. */
export const WEB_PAGE_REFUSAL = `the local queue answers only tools on this machine: a request with an Origin header (sent by web pages) or addressed to a host other than ${LOOPBACK_NAMES_TEXT} is refused`;

/**
 * Refuses, before any action runs, what a web page can make a browser send. The queue has no
 * authentication and speaks SQS's query protocol: form-encoded POSTs, which any site may send
 * cross-origin without a preflight. Browsers put `Origin` on every POST, and a page that reaches
 * the port through DNS rebinding names its own host in `Host`; the SDK and the tools send no
 * `Origin` and address 127.0.0.1. Answered 403 in the SDK's JSON error shape.
 */
function refuseWebPages(listener: RequestListener): RequestListener {
  return (request, response) => {
    if (request.headers.origin === undefined && isLoopbackHostHeader(request.headers.host)) {
      listener(request, response);
      return;
    }
    request.resume();
    response.writeHead(403, { 'content-type': SQS_JSON, connection: 'close' });
    response.end(JSON.stringify({ __type: 'AccessDenied', message: WEB_PAGE_REFUSAL }));
  };
}

/**
 * Holds every answer of the embedded queue until the messages stored before it are on the disk
 * (see {@link QueueJournal.afterDurable}): a SendMessage (or SendMessageBatch) is answered only
 * once its messages are flushed, while the flush itself, shared by every send made meanwhile,
 * runs off the event loop.
 * local-aws-sqs writes each answer with one `end` call. When the flush fails the answer is
 * dropped with the connection: the SDK retries, and the receiver answers 503 rather than 200.
 */
function answerOnceDurable(listener: RequestListener, journal: QueueJournal): RequestListener {
  return (request, response) => {
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.end = ((...args: unknown[]) => {
      journal.afterDurable((error) => {
        if (error === undefined) end(...args);
        else response.destroy(error);
      });
      return response;
    }) as ServerResponse['end'];
    listener(request, response);
  };
}

/** One of `local-aws-sqs`'s queue objects (its class is not exported by name). */
type EmbeddedQueue = ReturnType<typeof createRequestHandler>['service']['Queues'][number];

/** A queue entry as `setRecord` returns it; `record.attributes` holds the system attributes. */
interface EmbeddedEntry {
  readonly record: {
    readonly MessageId: string;
    readonly attributes: Record<string, string>;
  };
}

/**
 * SQS counts a received message under `ApproximateNumberOfMessagesNotVisible` only; local-aws-sqs
 * counts it under `ApproximateNumberOfMessages` as well, so the visible count is corrected here.
 */
function countOnlyVisibleMessages(queue: EmbeddedQueue): void {
  const getAttributes = queue.getAttributes.bind(queue);
  queue.getAttributes = (names?: string[]) => {
    const answer = getAttributes(names);
    if (answer?.ApproximateNumberOfMessages === undefined) return answer;
    const all = getAttributes(['All']);
    const visible =
      Number(all.ApproximateNumberOfMessages) - Number(all.ApproximateNumberOfMessagesNotVisible);
    return { ...answer, ApproximateNumberOfMessages: String(visible) };
  };
}

/** Queues the journal's messages again, keeping id, sent time and receive count; returns how many. */
function restoreMessages(queues: readonly EmbeddedQueue[], messages: readonly StoredMessage[]) {
  let restored = 0;
  for (const message of messages) {
    const queue = queues.find((candidate) => candidate.QueueName === message.queueName);
    if (!queue) continue;
    const entry: EmbeddedEntry = queue.setRecord(
      {
        MessageBody: message.body,
        MessageAttributes: message.messageAttributes,
        MessageSystemAttributes: message.systemAttributes,
      },
      message.messageId,
    );
    entry.record.attributes.SentTimestamp = String(message.sentTimestamp);
    entry.record.attributes.ApproximateReceiveCount = String(message.receiveCount);
    restored++;
  }
  return restored;
}

/**
 * Writes every change of `queue` to the journal. Sends (and dead-letter moves, which local-aws-sqs
 * makes by storing the message in the dead-letter queue under the same id) all pass through
 * `setRecord`, which SendMessage and SendMessageBatch call for each message before they answer:
 * the message is written before its answer, and that answer waits for the flush (see
 * {@link answerOnceDurable}), hence the message is on disk before the receiver answers 200.
 */
function journalChanges(queue: EmbeddedQueue, journal: QueueJournal): void {
  const setRecord = queue.setRecord;
  queue.setRecord = (input: Record<string, unknown>, messageId?: string) => {
    const entry: EmbeddedEntry = setRecord(input, messageId);
    journal.put({
      messageId: entry.record.MessageId,
      queueName: queue.QueueName,
      body: String(input.MessageBody),
      ...(input.MessageAttributes ? { messageAttributes: input.MessageAttributes } : {}),
      ...(input.MessageSystemAttributes ? { systemAttributes: input.MessageSystemAttributes } : {}),
      sentTimestamp: Number(entry.record.attributes.SentTimestamp),
      receiveCount: Number(entry.record.attributes.ApproximateReceiveCount),
    } as StoredMessage);
    return entry;
  };
  const receive = queue.receive.bind(queue);
  queue.receive = async (request: unknown) => {
    const records: EmbeddedEntry['record'][] = await receive(request);
    for (const record of records) {
      journal.received(record.MessageId, Number(record.attributes.ApproximateReceiveCount));
    }
    return records;
  };
  const remove = queue.delete.bind(queue);
  queue.delete = (receiptHandle: string) => {
    const removed = remove(receiptHandle);
    const messageId = messageIdOfReceipt(receiptHandle);
    if (removed && messageId !== undefined) journal.deleted(messageId);
    return removed;
  };
  const clearRecords = queue.clearRecords.bind(queue);
  queue.clearRecords = () => {
    clearRecords();
    journal.purged(queue.QueueName);
  };
}

/**
 * The message id inside a local-aws-sqs receipt handle: base64 of a UUID followed by
 * `{"date":…,"MessageId":…,"QueueName":…}` (the form its own DeleteMessage decodes).
 */
function messageIdOfReceipt(receiptHandle: string): string | undefined {
  try {
    const text = Buffer.from(receiptHandle, 'base64').toString('utf8');
    const { MessageId } = JSON.parse(text.slice(text.indexOf('{'))) as { MessageId?: unknown };
    return typeof MessageId === 'string' ? MessageId : undefined;
  } catch {
    return undefined;
  }
}
