import { FirehoseClient } from '@aws-sdk/client-firehose';
import { ensureWebhookSecret, type LocalWebhookSecret } from '../devkit/dotenv.js';
import { LOCAL_REGION } from '../devkit/local-run.js';
import { endpointKeyVariable, LOCAL_KEY_VARIABLE } from '../lambda/contract/endpoints.js';
import {
  ARCHIVE_STREAM,
  ENDPOINT_DIRECTORY_SECRET_ID,
  VARIABLES,
} from '../lambda/contract/environment.js';
import type { SourceAllowlist } from '../lambda/contract/source-allowlist.js';
import { type EndpointsConfig, loadConfig } from '../lambda/receiver/config.js';
import { endpointNameFromPath } from '../lambda/receiver/endpoints.js';
import { ARCHIVE_CLIENT_SETTINGS, createHandler } from '../lambda/receiver/handler.js';
import { createInspector, type Inspector } from './inspector/inspector.js';
import { type LocalArchive, startLocalArchive } from './local-archive.js';
import { type LocalQueues, startLocalQueues } from './local-queues.js';
import { type StartConfig, servesInspector } from './start-config.js';
import { lockStateFolder } from './state-lock.js';
import {
  INSPECTOR_PATH,
  startWebhookServer,
  type WebhookServer,
  type WebhookServerOptions,
} from './webhook-server.js';

/** Options of {@link startLocalReceiver}. */
export interface LocalReceiverOptions extends StartConfig {
  /** Environment the handler reads at cold start; `process.env`, which this function fills in. */
  readonly env: NodeJS.ProcessEnv;
  /** The dotenv file to read the key from, or to write a generated one to. */
  readonly dotEnvPath: string;
  /** Called with errors the handler throws (the caller prints them). */
  readonly onHandlerError: (error: unknown) => void;
  /** Called with the inspector's own failures, which never change an answer (the caller prints them). */
  readonly onInspectorError: (error: unknown) => void;
  /**
   * Called when the archive could not write a buffer of records, which stay in the state folder
   * and are tried again (the caller prints it).
   */
  readonly onArchiveError: (error: unknown) => void;
  /** Called with one line when a client disconnects mid-request (the caller prints it). */
  readonly onClientGone?: (line: string) => void;
  /** Starts with empty queues (`npm start -- --fresh`). */
  readonly fresh?: boolean;
}

/** One endpoint of the local run: where to send, and the key that signs for it. */
export interface LocalEndpoint {
  /** The endpoint's name (`ENDPOINTS`), or `undefined` for the single endpoint `/webhook`. */
  readonly name: string | undefined;
  /** e.g. `http://127.0.0.1:3000/webhook/eu`. */
  readonly url: string;
  readonly key: LocalWebhookSecret;
}

/** The running local receiver: endpoints with their keys, and queues. */
export interface LocalReceiver {
  /** The server; its `url` is the single endpoint's, and the base of named endpoints' URLs. */
  readonly webhook: WebhookServer;
  readonly queues: LocalQueues;
  /** The archive of every answered call, kept in the state folder's `archive` folder. */
  readonly archive: LocalArchive;
  /** The single endpoint, or one per name of `ENDPOINTS` in its order. */
  readonly endpoints: readonly LocalEndpoint[];
  /**
   * The delivery inspector's page, e.g. `http://127.0.0.1:3000/_inspector`; unset when it is not
   * served (`INSPECTOR=off`, or a `HOST` other than loopback without `INSPECTOR=on`).
   */
  readonly inspectorUrl: string | undefined;
  /** Environment variables this run removed because they conflict with a local run. */
  readonly ignored: readonly string[];
  /** `ALLOWED_SOURCE_IPS` as the receiver reads it; `undefined` lets every source in. */
  readonly allowedSources: SourceAllowlist | undefined;
  /** Stops the endpoint, then the queues, and closes the queues' journal. */
  close(): Promise<void>;
}

/** Credentials and region the SDK needs to sign requests; the embedded queue does not check them. */
const LOCAL_SDK_DEFAULTS = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;

/** Receiver settings that point at Secrets Manager, which a local run does not have. */
const SECRETS_MANAGER_SETTINGS = [
  VARIABLES.secretId,
  VARIABLES.endpointSecretIds,
  VARIABLES.endpointSecretJsonFields,
  ENDPOINT_DIRECTORY_SECRET_ID,
];

/**
 * Starts the whole receiver on this machine: the embedded queues, then the production handler
 * (`createHandler` with the configuration `loadConfig` reads from the environment, as the Lambda
 * entry point builds it) behind an HTTP endpoint. The keys are the local ones: `WEBHOOK_SECRET`,
 * or with `ENDPOINTS` one `WEBHOOK_SECRET_<NAME>` per endpoint, each served at `/webhook/<name>`
 * with its own key ring. Settings pointing at Secrets Manager (`SECRET_ID`, ...) are removed
 * from the environment and reported: a local run has none. The state folder is locked first and
 * released by `close` (see `state-lock.ts`).
 *
 * @throws {StateFolderBusyError} when another `npm start` holds the state folder (nothing changed)
 */
export async function startLocalReceiver(options: LocalReceiverOptions): Promise<LocalReceiver> {
  // First of all: a second start on the same folder must change nothing (.env, journal, ports).
  const lock = lockStateFolder(options.stateDir, options.port);
  try {
    const receiver = await startHoldingLock(options);
    lock.recordPort(receiver.webhook.port);
    return {
      ...receiver,
      close: async () => {
        try {
          await receiver.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** {@link startLocalReceiver} once its state folder is locked. */
async function startHoldingLock(options: LocalReceiverOptions): Promise<LocalReceiver> {
  const { env } = options;
  const keys = await ensureLocalKeys(options);
  const keyOf = (pathname: string): LocalWebhookSecret | undefined =>
    options.endpoints === undefined
      ? keys[0]?.key
      : keys.find(({ name }) => name === endpointNameFromPath(pathname))?.key;
  let origin = '';
  const inspector =
    options.inspector === 'off'
      ? undefined
      : createInspector({
          mode: options.inspector,
          listenHost: options.host,
          keyOf,
          origin: () => origin,
          onError: options.onInspectorError,
        });
  const queues = await startLocalQueues({
    port: options.localSqsPort,
    stateDir: options.stateDir,
    fresh: options.fresh ?? false,
    ...(inspector === undefined ? {} : { tap: inspector.tapQueue }),
  });
  let archive: LocalArchive;
  try {
    archive = await startLocalArchive({
      port: options.localS3Port,
      stateDir: options.stateDir,
      onWriteError: options.onArchiveError,
      ...(inspector === undefined ? {} : { onArchived: inspector.onArchived }),
    });
  } catch (error) {
    await queues.shutdown();
    throw error;
  }
  const ignored: string[] = [];
  const unused = [
    ...SECRETS_MANAGER_SETTINGS,
    // With ENDPOINTS each endpoint has its own key; a WEBHOOK_SECRET exported would sign nothing.
    ...(options.endpoints === undefined ? [] : [LOCAL_KEY_VARIABLE]),
  ];
  for (const name of unused) {
    if (env[name] === undefined) continue;
    delete env[name];
    ignored.push(name);
  }
  for (const [name, value] of Object.entries(LOCAL_SDK_DEFAULTS)) {
    if (!env[name]) env[name] = value;
  }
  env.QUEUE_URL = queues.queueUrl;
  env.AWS_ENDPOINT_URL_SQS = queues.endpoint;
  // The production archive code, against the local Firehose stand-in.
  env[ARCHIVE_STREAM] = archive.stream;
  env.AWS_ENDPOINT_URL_FIREHOSE = archive.endpoint;
  // EMF metric blobs mean nothing without CloudWatch; POWERTOOLS_METRICS_DISABLED=false shows them.
  env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  try {
    const config = loadConfig(env, endpointsConfig(keys));
    // The archive port answers only its state folder's credentials, whatever AWS_* says.
    const archiveClient = () =>
      new FirehoseClient({
        ...ARCHIVE_CLIENT_SETTINGS,
        region: LOCAL_REGION,
        endpoint: archive.endpoint,
        credentials: archive.credentials,
      });
    const webhook = await startWebhookServer({
      port: options.port,
      host: options.host,
      handler: createHandler(config, { firehoseClient: archiveClient() }),
      startEnvironment: () => createHandler(config, { firehoseClient: archiveClient() }),
      namedEndpoints: options.endpoints !== undefined,
      maxBodyBytes: config.maxBodyBytes,
      onHandlerError: options.onHandlerError,
      ...inspectorHooks(inspector, options.onInspectorError),
      ...(options.onClientGone ? { onClientGone: options.onClientGone } : {}),
    });
    origin = new URL(webhook.url).origin;
    return {
      webhook,
      queues,
      archive,
      endpoints: keys.map(({ name, key }) => ({
        name,
        url: name === undefined ? webhook.url : `${webhook.url}/${name}`,
        key,
      })),
      inspectorUrl: servesInspector(options) ? `${origin}${INSPECTOR_PATH}` : undefined,
      ignored,
      allowedSources: config.allowedSources,
      close: async () => {
        inspector?.close();
        await stopEach([() => webhook.close(), () => archive.close(), () => queues.shutdown()]);
      },
    };
  } catch (error) {
    // The failure to start is what is reported; a failure to stop after it would hide it.
    await stopEach([() => archive.close(), () => queues.shutdown()]).catch(() => undefined);
    throw error;
  }
}

/**
 * Runs each stop in turn, every one even when one before it failed, so that ports and files are
 * let go; then throws the first failure.
 */
async function stopEach(stops: ReadonlyArray<() => Promise<void>>): Promise<void> {
  let failure: { readonly error: unknown } | undefined;
  for (const stop of stops) {
    try {
      await stop();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}

/** An endpoint of the local run before it listens: its name and key. */
type LocalEndpointKey = Omit<LocalEndpoint, 'url'>;

/** Each endpoint's key, generated into the dotenv file when missing, one after the other. */
async function ensureLocalKeys(options: LocalReceiverOptions): Promise<LocalEndpointKey[]> {
  const { env, dotEnvPath, endpoints } = options;
  if (endpoints === undefined) {
    return [{ name: undefined, key: await ensureWebhookSecret(env, dotEnvPath) }];
  }
  const keys: LocalEndpointKey[] = [];
  for (const name of endpoints) {
    keys.push({ name, key: await ensureWebhookSecret(env, dotEnvPath, endpointKeyVariable(name)) });
  }
  return keys;
}

/** The handler's endpoints: the local keys as static key sources. */
function endpointsConfig(keys: readonly LocalEndpointKey[]): EndpointsConfig {
  const staticKey = (key: LocalWebhookSecret) => ({ kind: 'static', key: key.secret }) as const;
  const single = keys.find(({ name }) => name === undefined);
  if (single !== undefined) return { kind: 'single', keySource: staticKey(single.key) };
  return {
    kind: 'named',
    keySources: new Map(
      keys.flatMap(({ name, key }) =>
        name === undefined ? [] : [[name, staticKey(key)] as const],
      ),
    ),
  };
}

/** The server options that plug the inspector in (none when it is off). */
function inspectorHooks(
  inspector: Inspector | undefined,
  onInspectorError: (error: unknown) => void,
): Pick<WebhookServerOptions, 'onDelivery' | 'onDeliveryError' | 'inspector'> {
  if (inspector === undefined) return {};
  return {
    onDelivery: inspector.onDelivery,
    onDeliveryError: onInspectorError,
    inspector: inspector.routes,
  };
}
