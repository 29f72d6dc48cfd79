import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One stored log event. */
interface StoredEvent {
  readonly logStreamName: string;
  readonly timestamp: number;
  readonly message: string;
}

/** A CloudWatch Logs endpoint inside the test process, holding log groups written by the test. */
export interface CloudWatchLogsServer {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS`. */
  readonly endpoint: string;
  /** Writes one event to a log group (created on first write), as Lambda ships a function's line. */
  put(logGroupName: string, message: string, timestamp?: number): void;
  /** Creates an empty log group. */
  createLogGroup(logGroupName: string): void;
  /** The filter patterns FilterLogEvents was called with, in order. */
  readonly filterPatterns: string[];
  close(): Promise<void>;
}

/**
 * Serves `FilterLogEvents` over the service's wire protocol (AWS JSON 1.1: `POST /` with
 * `X-Amz-Target: Logs_20140328.FilterLogEvents`), so the SDK's real HTTP stack runs. Filter
 * patterns: empty (every event) or one quoted phrase, matched as a substring as the service does;
 * any other pattern is refused, so a tool relying on more than this is caught here. An unknown
 * log group answers `ResourceNotFoundException`.
 */
export async function startCloudWatchLogsServer(): Promise<CloudWatchLogsServer> {
  const groups = new Map<string, StoredEvent[]>();
  const filterPatterns: string[] = [];
  const server = createServer((request, response) => void answer(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const operation = String(request.headers['x-amz-target'] ?? '').replace('Logs_20140328.', '');
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      logGroupName?: string;
      startTime?: number;
      filterPattern?: string;
    };
    const [status, body] = reply(operation, input);
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  }

  function reply(
    operation: string,
    input: { logGroupName?: string; startTime?: number; filterPattern?: string },
  ): [number, unknown] {
    if (operation !== 'FilterLogEvents') {
      return [400, { __type: 'InvalidParameterException', message: `${operation} is not served` }];
    }
    const events = groups.get(input.logGroupName ?? '');
    if (events === undefined) {
      return [
        400,
        { __type: 'ResourceNotFoundException', message: 'The specified log group does not exist.' },
      ];
    }
    const pattern = input.filterPattern ?? '';
    filterPatterns.push(pattern);
    const phrase = /^"([^"]*)"$/.exec(pattern)?.[1];
    if (pattern !== '' && phrase === undefined) {
      return [
        400,
        { __type: 'InvalidParameterException', message: `pattern not served: ${pattern}` },
      ];
    }
    const matching = events.filter(
      (event) =>
        event.timestamp >= (input.startTime ?? 0) &&
        (phrase === undefined || event.message.includes(phrase)),
    );
    return [
      200,
      {
        events: matching.map((event) => ({
          ...event,
          ingestionTime: event.timestamp,
          eventId: randomUUID(),
        })),
        searchedLogStreams: [],
      },
    ];
  }

  return {
    endpoint: `http://127.0.0.1:${port}`,
    filterPatterns,
    createLogGroup: (logGroupName) => {
      if (!groups.has(logGroupName)) groups.set(logGroupName, []);
    },
    put: (logGroupName, message, timestamp = Date.now()) => {
      const events = groups.get(logGroupName) ?? [];
      groups.set(logGroupName, events);
      events.push({ logStreamName: '2026/11/27/[$LATEST]smoke', timestamp, message });
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
