import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Firehose endpoint inside the test process, taking `PutRecord` and `PutRecordBatch`. */
export interface LocalFirehose {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_FIREHOSE`. */
  readonly endpoint: string;
  /** Every request that arrived, in order: its operation and `DeliveryStreamName`. */
  readonly calls: Array<{ readonly operation: string; readonly streamName: string }>;
  /** The records put, decoded, in order. */
  readonly records: string[];
  close(): Promise<void>;
}

/**
 * Starts a Firehose stand-in on a free loopback port, speaking the service's wire protocol (AWS
 * JSON 1.1: `POST /` with `X-Amz-Target: Firehose_20150804.<Operation>`), so a bundle with an
 * archive stream in its environment runs its real SDK calls against it.
 */
export async function startLocalFirehose(
  options: {
    /**
     * Records containing this text are refused: each with its own error in a PutRecordBatch, and
     * a PutRecord of one is answered 503 ServiceUnavailableException.
     */
    readonly refuseRecordsContaining?: string;
  } = {},
): Promise<LocalFirehose> {
  const refused = (data: string) =>
    options.refuseRecordsContaining !== undefined &&
    Buffer.from(data, 'base64').toString('utf8').includes(options.refuseRecordsContaining);
  const calls: LocalFirehose['calls'] = [];
  const records: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        DeliveryStreamName?: string;
        Record?: { Data: string };
        Records?: Array<{ Data: string }>;
      };
      calls.push({ operation, streamName: String(input.DeliveryStreamName) });
      if (input.Record !== undefined && refused(input.Record.Data)) {
        response.writeHead(503, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(
          JSON.stringify({ __type: 'ServiceUnavailableException', message: 'Slow down.' }),
        );
        return;
      }
      const put = input.Record === undefined ? (input.Records ?? []) : [input.Record];
      for (const { Data } of put) {
        if (!refused(Data)) records.push(Buffer.from(Data, 'base64').toString('utf8'));
      }
      const answer =
        operation === 'PutRecordBatch'
          ? {
              FailedPutCount: put.filter(({ Data }) => refused(Data)).length,
              Encrypted: false,
              RequestResponses: put.map(({ Data }, index) =>
                refused(Data)
                  ? { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'Slow down.' }
                  : { RecordId: `record-${index}` },
              ),
            }
          : { RecordId: `record-${records.length}`, Encrypted: false };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    records,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
