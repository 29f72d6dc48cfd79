import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ApiGatewayEvent, ApiGatewayResponse } from './api-gateway.js';
import type { KeySourceConfig, ReceiverConfig } from './config.js';
import type { ReceiveRequest } from './decision/receive.js';
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
  route(event: ApiGatewayEvent, request: ReceiveRequest): EndpointRoute | undefined;
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
    return { route: (_event, request) => ({ request, keys }) };
  }
  const rings = new Map<string, DeadlineKeySource>();
  return {
    route(event, request) {
      const name = endpointNameFromPath(requestPath(event));
      const source = name === undefined ? undefined : endpoints.keySources.get(name);
      if (name === undefined || source === undefined) return undefined;
      let keys = rings.get(name);
      if (keys === undefined) {
        keys = keyRingFor(source, name, config, dependencies);
        rings.set(name, keys);
      }
      return { request: { ...request, endpoint: name }, keys };
    },
  };
}

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
