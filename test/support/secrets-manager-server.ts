import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll } from 'vitest';
import { LOCAL_AWS_SETTINGS } from './local-sqs.js';
import type { FakeSecretStore } from './secret-store.js';
import { findSecretVersion } from './secrets-manager.js';

/** How the embedded Secrets Manager answers. */
export type SecretsManagerBehaviour =
  | { readonly kind: 'answer'; readonly delayMs: number }
  /** Accepts the connection and the request, and never answers. */
  | { readonly kind: 'silent' }
  /** Answers every request with this error, as the service does (e.g. `AccessDeniedException`). */
  | { readonly kind: 'error'; readonly type: string; readonly status: number };

/** A Secrets Manager endpoint inside the test process, serving one {@link FakeSecretStore}. */
export interface SecretsManagerServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** The secret served under any `SecretId` that {@link stores} does not hold. */
  store: FakeSecretStore;
  /** Secrets served under their own `SecretId` (several endpoints, one secret each). */
  readonly stores: Map<string, FakeSecretStore>;
  /** How the next requests are answered; `{ kind: 'answer', delayMs: 0 }` at start. */
  behaviour: SecretsManagerBehaviour;
  /** How the next requests for one `SecretId` are answered, in place of {@link behaviour}. */
  readonly behaviourBySecret: Map<string, SecretsManagerBehaviour>;
  /** How many requests arrived, per operation (`DescribeSecret`, `GetSecretValue`). */
  readonly requests: Map<string, number>;
  /** How many requests arrived, per `SecretId`. */
  readonly requestsBySecret: Map<string, number>;
  /** Every request that arrived, in order: its operation and `SecretId`. */
  readonly calls: Array<{ readonly operation: string; readonly secretId: string }>;
  /** A client for the server, with the settings given (the receiver's, for example). */
  client(settings?: ConstructorParameters<typeof SecretsManagerClient>[0]): SecretsManagerClient;
}

/**
 * Serves `DescribeSecret` and `GetSecretValue` over the service's wire protocol (AWS JSON 1.1:
 * `POST /` with `X-Amz-Target: secretsmanager.<Operation>`), so the SDK's real HTTP stack,
 * timeouts and retries run: what a stubbed client cannot show. Values are served as
 * `SecretString`, or `SecretBinary` (base64) for bytes; unknown versions answer
 * `ResourceNotFoundException` as the service does.
 *
 * Starts once per test file; the store and behaviour can be changed by each test.
 *
 * @param store - the secret to serve at start
 */
export function useSecretsManagerServer(store: FakeSecretStore): () => SecretsManagerServer {
  let server: Server | undefined;
  let state: SecretsManagerServer | undefined;
  // Requests held by a silent server, answered at shutdown so nothing is left open.
  const held = new Set<ServerResponse>();
  beforeAll(async () => {
    server = createServer((request, response) => void answer(request, response));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const endpoint = `http://127.0.0.1:${port}`;
    state = {
      endpoint,
      store,
      stores: new Map(),
      behaviour: { kind: 'answer', delayMs: 0 },
      behaviourBySecret: new Map(),
      requests: new Map(),
      requestsBySecret: new Map(),
      calls: [],
      client: (settings = {}) =>
        new SecretsManagerClient({ ...LOCAL_AWS_SETTINGS, ...settings, endpoint }),
    };
  });
  afterAll(async () => {
    for (const response of held) response.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const current = state as SecretsManagerServer;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const operation = String(request.headers['x-amz-target'] ?? '').replace('secretsmanager.', '');
    current.requests.set(operation, (current.requests.get(operation) ?? 0) + 1);
    const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
      SecretId?: string;
      VersionId?: string;
      VersionStage?: string;
    };
    const secretId = input.SecretId ?? '';
    current.requestsBySecret.set(secretId, (current.requestsBySecret.get(secretId) ?? 0) + 1);
    current.calls.push({ operation, secretId });
    const behaviour = current.behaviourBySecret.get(secretId) ?? current.behaviour;
    if (behaviour.kind === 'silent') {
      held.add(response);
      response.on('close', () => held.delete(response));
      return;
    }
    if (behaviour.kind === 'error') {
      response.writeHead(behaviour.status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ __type: behaviour.type, message: `${behaviour.type} (test)` }));
      return;
    }
    if (behaviour.delayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (response.destroyed) return;
    const store = current.stores.get(secretId) ?? current.store;
    const [status, body] = reply(operation, input, store);
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  }

  return () => {
    if (state === undefined) throw new Error('useSecretsManagerServer: used outside a test');
    return state;
  };
}

function reply(
  operation: string,
  input: { SecretId?: string; VersionId?: string; VersionStage?: string },
  store: FakeSecretStore,
): [number, unknown] {
  const versions = store.versions();
  const arn = `arn:aws:secretsmanager:us-east-1:123456789012:secret:${input.SecretId}-AbCdEf`;
  if (operation === 'DescribeSecret') {
    return [
      200,
      {
        ARN: arn,
        Name: input.SecretId,
        VersionIdsToStages: Object.fromEntries(
          versions.filter((v) => v.stages.length > 0).map((v) => [v.versionId, v.stages]),
        ),
      },
    ];
  }
  if (operation === 'GetSecretValue') {
    const version = findSecretVersion(versions, input);
    if (version === undefined) {
      return [
        400,
        {
          __type: 'ResourceNotFoundException',
          message: "Secrets Manager can't find the specified secret value.",
        },
      ];
    }
    return [
      200,
      {
        ARN: arn,
        Name: input.SecretId,
        VersionId: version.versionId,
        ...(typeof version.value === 'string'
          ? { SecretString: version.value }
          : { SecretBinary: Buffer.from(version.value).toString('base64') }),
        VersionStages: version.stages,
        CreatedDate: version.createdAt.getTime() / 1000,
      },
    ];
  }
  return [400, { __type: 'InvalidRequestException', message: `${operation} is not served` }];
}
