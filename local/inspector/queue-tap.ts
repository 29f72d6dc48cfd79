import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** What the embedded queue did with a message, as seen on its wire. */
export type QueueActivity =
  | {
      readonly kind: 'sent';
      readonly messageId: string;
      readonly body: string;
      readonly attributes: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'received'; readonly messageId: string; readonly receiptHandle: string }
  | { readonly kind: 'deleted'; readonly receiptHandle: string };

/**
 * Wraps the embedded queue's request listener so the inspector learns message ids, receives and
 * deletes without touching the queue: an SQS API call such as ReceiveMessage would itself count
 * as a receive (and move the message toward the dead-letter queue), and SQS has no "peek". Reads
 * the SQS JSON protocol (`x-amz-target: AmazonSQS.<Action>`), which the AWS SDK v3 speaks; calls
 * in the older query protocol are passed through unseen.
 *
 * @param listener - the queue server's own request listener, called unchanged
 * @param onActivity - called after each successful SendMessage(Batch), ReceiveMessage and DeleteMessage(Batch)
 */
export function tapQueueRequests(
  listener: RequestListener,
  onActivity: (activity: QueueActivity) => void,
): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const action = /^AmazonSQS\.(\w+)$/.exec(String(request.headers['x-amz-target'] ?? ''))?.[1];
    if (action === undefined || !TAPPED_ACTIONS.has(action)) {
      listener(request, response);
      return;
    }
    const requestChunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => requestChunks.push(chunk));
    const responseChunks: Buffer[] = [];
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      collect(responseChunks, chunk);
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    response.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') collect(responseChunks, chunk);
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
    response.on('finish', () => {
      if (response.statusCode !== 200) return;
      const input = parseJson(Buffer.concat(requestChunks));
      const output = parseJson(Buffer.concat(responseChunks));
      for (const activity of activitiesOf(action, input, output)) onActivity(activity);
    });
    listener(request, response);
  };
}

const TAPPED_ACTIONS = new Set([
  'SendMessage',
  'SendMessageBatch',
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
]);

function activitiesOf(action: string, input: Json, output: Json): QueueActivity[] {
  switch (action) {
    case 'SendMessage':
      return sent(input, output);
    case 'SendMessageBatch': {
      const entries = records(input.Entries);
      return records(output.Successful).flatMap((result) =>
        sent(entries.find((entry) => entry.Id === result.Id) ?? {}, result),
      );
    }
    case 'ReceiveMessage':
      return records(output.Messages).flatMap((message) =>
        typeof message.MessageId === 'string' && typeof message.ReceiptHandle === 'string'
          ? [
              {
                kind: 'received',
                messageId: message.MessageId,
                receiptHandle: message.ReceiptHandle,
              },
            ]
          : [],
      );
    case 'DeleteMessage':
      return deleted(input);
    default: {
      const done = new Set(records(output.Successful).map((result) => result.Id));
      return records(input.Entries)
        .filter((entry) => done.has(entry.Id))
        .flatMap(deleted);
    }
  }
}

function sent(input: Json, output: Json): QueueActivity[] {
  if (typeof output.MessageId !== 'string' || typeof input.MessageBody !== 'string') return [];
  const attributes: Record<string, string> = {};
  const given = input.MessageAttributes;
  if (isRecord(given)) {
    for (const [name, value] of Object.entries(given)) {
      if (isRecord(value) && typeof value.StringValue === 'string') {
        attributes[name] = value.StringValue;
      }
    }
  }
  return [{ kind: 'sent', messageId: output.MessageId, body: input.MessageBody, attributes }];
}

function deleted(input: Json): QueueActivity[] {
  return typeof input.ReceiptHandle === 'string'
    ? [{ kind: 'deleted', receiptHandle: input.ReceiptHandle }]
    : [];
}

type Json = Record<string, unknown>;

function collect(chunks: Buffer[], chunk: unknown): void {
  if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
  else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
}

function parseJson(bytes: Buffer): Json {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
