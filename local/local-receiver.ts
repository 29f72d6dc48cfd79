import { loadConfig } from '../lambda/receiver/config.js';
import { ensureWebhookSecret, type LocalWebhookSecret } from './dotenv.js';
import { isLoopbackHost } from './inspector/access.js';
import { createInspector, type Inspector } from './inspector/inspector.js';
import { type LocalQueues, startLocalQueues } from './local-queues.js';
import type { StartConfig } from './start-config.js';
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
  /** Called with one line when a client disconnects mid-request (the caller prints it). */
  readonly onClientGone?: (line: string) => void;
  /** Starts with empty queues (`npm start -- --fresh`). */
  readonly fresh?: boolean;
}

/** The running local receiver: endpoint, queues and key. */
export interface LocalReceiver {
  readonly webhook: WebhookServer;
  readonly queues: LocalQueues;
  readonly key: LocalWebhookSecret;
  /**
   * The delivery inspector's page, e.g. `http://127.0.0.1:3000/_inspector`; unset when it is not
   * served (`INSPECTOR=off`, or a `HOST` other than loopback without `INSPECTOR=on`).
   */
  readonly inspectorUrl: string | undefined;
  /** Environment variables this run removed because they conflict with a local run. */
  readonly ignored: readonly string[];
  /** Stops the endpoint, then the queues, and closes the queues' journal. */
  close(): Promise<void>;
}

/** Credentials and region the SDK needs to sign requests; the embedded queue does not check them. */
const LOCAL_SDK_DEFAULTS = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
} as const;

/**
 * Starts the whole receiver on this machine: the embedded queues, then the production `handler`
 * behind an HTTP endpoint. The handler reads its configuration at cold start, so the environment
 * (queue URL, SQS endpoint, key) is set first and the handler module is imported after that.
 * A `SECRET_ID` in the environment is removed: the handler refuses it next to `WEBHOOK_SECRET`,
 * and a local run has no Secrets Manager.
 */
export async function startLocalReceiver(options: LocalReceiverOptions): Promise<LocalReceiver> {
  const { env } = options;
  const key = await ensureWebhookSecret(env, options.dotEnvPath);
  let origin = '';
  const inspector =
    options.inspector === 'off'
      ? undefined
      : createInspector({
          mode: options.inspector,
          listenHost: options.host,
          key: key.secret,
          origin: () => origin,
        });
  const queues = await startLocalQueues({
    port: options.localSqsPort,
    stateDir: options.stateDir,
    fresh: options.fresh ?? false,
    ...(inspector === undefined ? {} : { tap: inspector.tapQueue }),
  });
  const ignored: string[] = [];
  if (env.SECRET_ID !== undefined) {
    delete env.SECRET_ID;
    ignored.push('SECRET_ID');
  }
  for (const [name, value] of Object.entries(LOCAL_SDK_DEFAULTS)) {
    if (!env[name]) env[name] = value;
  }
  env.WEBHOOK_SECRET = key.secret;
  env.QUEUE_URL = queues.queueUrl;
  env.AWS_ENDPOINT_URL_SQS = queues.endpoint;
  // EMF metric blobs mean nothing without CloudWatch; POWERTOOLS_METRICS_DISABLED=false shows them.
  env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  try {
    const { handler } = await import('../lambda/receiver/index.js');
    const webhook = await startWebhookServer({
      port: options.port,
      host: options.host,
      handler,
      // Read after the import: a bad value has already stopped the start with a ConfigError.
      maxBodyBytes: loadConfig(env).maxBodyBytes,
      onHandlerError: options.onHandlerError,
      ...inspectorHooks(inspector),
      ...(options.onClientGone ? { onClientGone: options.onClientGone } : {}),
    });
    origin = new URL(webhook.url).origin;
    return {
      webhook,
      queues,
      key,
      inspectorUrl: servesInspector(options) ? `${origin}${INSPECTOR_PATH}` : undefined,
      ignored,
      close: async () => {
        inspector?.close();
        await webhook.close();
        await queues.shutdown();
      },
    };
  } catch (error) {
    await queues.shutdown();
    throw error;
  }
}

/** The server options that plug the inspector in (none when it is off). */
function inspectorHooks(
  inspector: Inspector | undefined,
): Pick<WebhookServerOptions, 'onDelivery' | 'inspector'> {
  if (inspector === undefined) return {};
  return { onDelivery: inspector.onDelivery, inspector: inspector.routes };
}

/** Whether the inspector answers at all: `INSPECTOR=on`, or unset with a loopback `HOST`. */
function servesInspector(config: StartConfig): boolean {
  return config.inspector === 'on' || (config.inspector === 'auto' && isLoopbackHost(config.host));
}
