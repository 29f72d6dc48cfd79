import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { closeEmbeddedServer, useForBlock } from './embedded-server.js';
import { LOCAL_AWS_SETTINGS } from './local-sqs.js';

/** A DynamoDB-compatible server (`dynalite`, data in memory) running inside the test process. */
export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>`, for `AWS_ENDPOINT_URL_DYNAMODB` or a client's `endpoint`. */
  readonly endpoint: string;
  /** A client pointed at the server. */
  readonly client: DynamoDBClient;
  /**
   * Creates a table keyed like the idempotency table the construct deploys (partition key `id`,
   * a string) under a fresh name.
   * @returns the table name
   */
  createIdempotencyTable(): Promise<string>;
  /**
   * Requests the server received since the last {@link LocalDynamoDb.resetRequests}, counted by
   * operation (`PutItem`, `GetItem`, …), as read from each request's `X-Amz-Target` header.
   */
  requests(): Record<string, number>;
  /** Starts counting from zero. */
  resetRequests(): void;
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Starts `dynalite` on a free loopback port with its data in memory (nothing on disk); it speaks
 * DynamoDB's JSON protocol, so code under test uses the real SDK over the wire.
 */
export async function startLocalDynamoDb(): Promise<LocalDynamoDb> {
  // Tables become ACTIVE at once: tests create one each.
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0 });
  let counts: Record<string, number> = {};
  server.on('request', (request: { headers: Record<string, string | string[] | undefined> }) => {
    const target = request.headers['x-amz-target'];
    const operation = typeof target === 'string' ? (target.split('.')[1] ?? target) : 'unknown';
    counts[operation] = (counts[operation] ?? 0) + 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ ...LOCAL_AWS_SETTINGS, endpoint });
  return {
    endpoint,
    client,
    async createIdempotencyTable() {
      const name = `idempotency-${randomUUID()}`;
      await client.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await waitUntilTableExists({ client, minDelay: 1, maxWaitTime: 10 }, { TableName: name });
      return name;
    },
    requests: () => ({ ...counts }),
    resetRequests: () => {
      counts = {};
    },
    close: () => closeEmbeddedServer(server, client),
  };
}

/**
 * One embedded DynamoDB server for the enclosing `describe` block, started before its first test
 * and stopped after its last.
 *
 * @returns the running server (call it inside tests and hooks)
 */
export function useLocalDynamoDb(): () => LocalDynamoDb {
  return useForBlock(startLocalDynamoDb, 'useLocalDynamoDb');
}
