import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type KeySourceConfig, parseEndpointDirectory } from '../contract/endpoint-directory.js';
import { isEndpointName } from '../contract/endpoints.js';
import { ConfigError } from '../contract/environment.js';
import type { ApiGatewayEvent, ApiGatewayResponse } from './api-gateway.js';
import type { ReceiverConfig } from './config.js';
import { KeyLoadError, type ReceiveRequest } from './decision/receive.js';
import {
  CachedKeyRing,
  type DeadlineKeySource,
  secretsManagerKeyLoader,
  staticKeySource,
} from './key-ring.js';
import {
  type Observability,
  recordKeyLoaded,
  recordKeyLoadFailure,
  recordSkippedKeyVersion,
} from './observability.js';

/** A call routed to its endpoint: the request to decide on and the keys that verify it. */
export interface EndpointRoute {
  /** The request, with `endpoint` set when the receiver serves named endpoints. */
  readonly request: ReceiveRequest;
  /** The endpoint's own key ring. */
  readonly keys: DeadlineKeySource;
}

/** Picks the endpoint, and with it the key ring, of each call. */
export interface EndpointRouter {
  /**
   * The route of a call, or `undefined` when its path names no configured endpoint (a 404,
   * decided without touching any key).
   *
   * @param event - the proxy event, for its path
   * @param request - the request read from it
   */
  route(
    event: ApiGatewayEvent,
    request: ReceiveRequest,
    deadlineAt?: number,
  ): Promise<EndpointRoute | undefined>;
}

/** What {@link endpointRouter} needs besides the configuration. */
export interface EndpointRouterDependencies {
  /** The Secrets Manager client; called once, when the first endpoint with a secret is set up. */
  readonly secretsManagerClient: () => SecretsManagerClient;
  readonly observability: Observability;
  /** Clock in milliseconds. */
  readonly now: () => number;
}

/**
 * Routes calls to endpoints. With a single endpoint (`SECRET_ID` or `WEBHOOK_SECRET`) every
 * call gets its key ring and the path is not looked at, as before endpoints existed: the front
 * door decides which paths reach the function. With named endpoints (`ENDPOINT_SECRET_IDS`) the
 * endpoint is the last path segment after `/webhook/` ({@link endpointNameFromPath}); each
 * endpoint has its own key ring (stages, grace, cache and reload rate limit), created and loaded
 * on the first call to it, so one endpoint's key never verifies another's calls and one
 * secret's outage answers 503 on its endpoint only.
 *
 * @param config - validated configuration
 * @param dependencies - Secrets Manager client, observability and clock
 */
export function endpointRouter(
  config: ReceiverConfig,
  dependencies: EndpointRouterDependencies,
): EndpointRouter {
  const { endpoints } = config;
  if (endpoints.kind === 'single') {
    const keys = keyRingFor(endpoints.keySource, undefined, config, dependencies);
    return { route: async (_event, request) => ({ request, keys }) };
  }
  const rings = new Map<string, DeadlineKeySource>();
  const routeNamed = (
    keySources: ReadonlyMap<string, KeySourceConfig>,
    name: string,
    request: ReceiveRequest,
  ): EndpointRoute | undefined => {
    const source = keySources.get(name);
    if (source === undefined) return undefined;
    let keys = rings.get(name);
    if (keys === undefined) {
      keys = keyRingFor(source, name, config, dependencies);
      rings.set(name, keys);
    }
    return { request: { ...request, endpoint: name }, keys };
  };
  if (endpoints.kind === 'named') {
    return {
      route: async (event, request) => {
        const name = endpointNameFromPath(requestPath(event));
        return name === undefined ? undefined : routeNamed(endpoints.keySources, name, request);
      },
    };
  }
  const directory = endpointDirectoryLoader(endpoints.secretId, dependencies);
  return {
    async route(event, request, deadlineAt) {
      const name = endpointNameFromPath(requestPath(event));
      // A path that cannot name an endpoint is answered 404 without loading the directory.
      if (name === undefined || !isEndpointName(name)) return undefined;
      const keySources = await directory(deadlineAt);
      if (keySources instanceof KeyLoadError) {
        // Keys that cannot be known: the call is answered 503 keys_unavailable, as for its key.
        const unavailable = () => Promise.reject(keySources);
        const keys = { current: unavailable, refreshAfterMismatch: unavailable };
        return { request: { ...request, endpoint: name }, keys };
      }
      return routeNamed(keySources, name, request);
    },
  };
}

/**
 * Time after a failed directory load during which calls are answered 503 without trying again,
 * as a key ring waits after a failed key load, so an outage is not met with a call per request.
 */
const DIRECTORY_RETRY_MS = 30_000;

/**
 * Reads the endpoint directory (`ENDPOINT_DIRECTORY_SECRET_ID`) once: a successful read is kept for
 * the life of the environment (a deploy that changes the directory also changes
 * `ENDPOINT_DIRECTORY_VERSION`, so it starts new environments). A failed or unreadable one is
 * recorded as a key-load failure and returned as a {@link KeyLoadError} for
 * {@link DIRECTORY_RETRY_MS}.
 */
function endpointDirectoryLoader(
  secretId: string,
  { secretsManagerClient, observability, now }: EndpointRouterDependencies,
): (deadlineAt?: number) => Promise<ReadonlyMap<string, KeySourceConfig> | KeyLoadError> {
  let loaded: ReadonlyMap<string, KeySourceConfig> | undefined;
  let failed: { readonly error: KeyLoadError; readonly at: number } | undefined;
  let loading: Promise<ReadonlyMap<string, KeySourceConfig> | KeyLoadError> | undefined;
  const load = async (deadlineAt: number) => {
    try {
      const ms = Math.max(1, deadlineAt - now());
      const { SecretString } = await secretsManagerClient().send(
        new GetSecretValueCommand({ SecretId: secretId }),
        { abortSignal: AbortSignal.timeout(ms), requestTimeout: ms },
      );
      loaded = parseEndpointDirectory(SecretString ?? '');
      return loaded;
    } catch (cause) {
      const error = new KeyLoadError(
        cause instanceof ConfigError
          ? cause.message
          : `GetSecretValue of the endpoint directory ${secretId} failed`,
        { cause },
      );
      failed = { error, at: now() };
      recordKeyLoadFailure(observability, error, false);
      return error;
    } finally {
      loading = undefined;
    }
  };
  return (deadlineAt = now() + DIRECTORY_DEADLINE_MS) => {
    if (loaded !== undefined) return Promise.resolve(loaded);
    if (failed !== undefined && now() - failed.at < DIRECTORY_RETRY_MS) {
      return Promise.resolve(failed.error);
    }
    // Concurrent first calls of one environment share one read.
    loading ??= load(deadlineAt);
    return loading;
  };
}

/** Upper bound of a directory read when the caller gives no deadline, as for a key load. */
const DIRECTORY_DEADLINE_MS = 5000;

/**
 * The request path as AWS documents it per payload: `rawPath` for HTTP API (payload 2.0) and
 * function URLs, `path` for REST API (payload 1.0). `rawPath` starts with the stage name on an
 * HTTP API stage other than `$default`; REST `path` carries a custom domain's base path.
 *
 * @param event - the proxy event
 * @returns the path, or `undefined` when the event has none
 */
export function requestPath(event: ApiGatewayEvent): string | undefined {
  const path: unknown = 'httpMethod' in event ? event.path : event.rawPath;
  return typeof path === 'string' ? path : undefined;
}

/**
 * The endpoint a path names: its last segment when the one before it is `webhook`
 * (`/webhook/eu`, `/prod/webhook/eu`), whatever prefix a stage or base path adds. `/webhook`,
 * `/webhook/eu/` and any other path name none.
 *
 * @param path - the request path
 */
export function endpointNameFromPath(path: string | undefined): string | undefined {
  return path === undefined ? undefined : /(?:^|\/)webhook\/([^/]+)$/.exec(path)?.[1];
}

/** The answer to a call whose path names no configured endpoint. */
export function notFoundResponse(): ApiGatewayResponse {
  return {
    statusCode: 404,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: 'not_found' }),
  };
}

function keyRingFor(
  source: KeySourceConfig,
  endpoint: string | undefined,
  config: ReceiverConfig,
  { secretsManagerClient, observability, now }: EndpointRouterDependencies,
): DeadlineKeySource {
  if (source.kind === 'static') return staticKeySource(source.key);
  const load = secretsManagerKeyLoader(secretsManagerClient(), source.secretId, {
    previousKeyGraceSeconds: config.previousKeyGraceSeconds,
    jsonField: source.jsonField ?? config.secretJsonField,
    now,
    onSkippedVersion: (skipped) => recordSkippedKeyVersion(observability, skipped, endpoint),
  });
  return new CachedKeyRing(load, {
    cacheSeconds: config.secretCacheSeconds,
    now,
    onLoadFailure: (error, usingStaleKeys) =>
      recordKeyLoadFailure(observability, error, usingStaleKeys, endpoint),
    onLoaded: () => recordKeyLoaded(observability),
  });
}
