import { resolve } from 'node:path';
import { UsageError } from '../cli/lib/tool-io.js';
import { ENDPOINT_NAME_RULE, isEndpointName } from '../lambda/receiver/config.js';
import type { InspectorMode } from './inspector/access.js';
import { DEFAULT_LOCAL_S3_PORT } from './local-archive.js';
import { DEFAULT_LOCAL_SQS_PORT } from './local-queues.js';
import { LOOPBACK } from './net.js';

/** Port of the local webhook endpoint when `PORT` is not set. */
export const DEFAULT_PORT = 3000;

/** Settings of `npm start`, read once from the environment. */
export interface StartConfig {
  /** `PORT`: port of the webhook endpoint (0 = any free port). */
  readonly port: number;
  /** `HOST`: interface of the webhook endpoint; loopback unless deliberately opened up. */
  readonly host: string;
  /** `LOCAL_SQS_PORT`: port of the embedded queue (always loopback; 0 = any free port). */
  readonly localSqsPort: number;
  /**
   * `LOCAL_S3_PORT`: port of the local archive, S3 and the Firehose stand-in (always loopback;
   * 0 = any free port).
   */
  readonly localS3Port: number;
  /** `INSPECTOR`: `on`, `off`, or `auto` when unset (the delivery inspector on loopback only). */
  readonly inspector: InspectorMode;
  /** `LOCAL_STATE_DIR`: absolute directory of the queues' journal. */
  readonly stateDir: string;
  /**
   * `ENDPOINTS`: the named endpoints served at `/webhook/<name>`, each with its key in
   * `WEBHOOK_SECRET_<NAME>`; `undefined` for the single endpoint `/webhook` and `WEBHOOK_SECRET`.
   */
  readonly endpoints: readonly string[] | undefined;
}

/** Where the embedded queue keeps its messages when `LOCAL_STATE_DIR` is not set (git-ignored). */
export const DEFAULT_STATE_DIR = '.local/queues';

/**
 * Reads `PORT` (default 3000), `HOST` (default 127.0.0.1), `LOCAL_SQS_PORT` (default 9324),
 * `LOCAL_S3_PORT` (default 9325),
 * `INSPECTOR` (default `auto`), `LOCAL_STATE_DIR` (default `.local/queues`, relative to `cwd`)
 * and `ENDPOINTS` (from the environment, else from `.env`; default: the single endpoint).
 * Blank values count as unset.
 *
 * @param env - the environment
 * @param cwd - the directory `LOCAL_STATE_DIR` is relative to
 * @param dotEnv - the variables of `.env` (see `readDotEnv`)
 * @throws {UsageError} when a port is not a whole number from 0 to 65535, `INSPECTOR` is not `on`
 *   or `off`, or `ENDPOINTS` is not a list of distinct endpoint names
 */
export function readStartConfig(
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  dotEnv: Readonly<Record<string, string>> = {},
): StartConfig {
  return {
    port: portFrom(env, 'PORT', DEFAULT_PORT),
    host: env.HOST?.trim() || LOOPBACK,
    localSqsPort: portFrom(env, 'LOCAL_SQS_PORT', DEFAULT_LOCAL_SQS_PORT),
    localS3Port: portFrom(env, 'LOCAL_S3_PORT', DEFAULT_LOCAL_S3_PORT),
    inspector: inspectorModeFrom(env),
    stateDir: resolve(cwd, env.LOCAL_STATE_DIR?.trim() || DEFAULT_STATE_DIR),
    endpoints: endpointsFrom(env, dotEnv),
  };
}

/** The variable listing the local run's named endpoints, e.g. `ENDPOINTS=eu,us`. */
export const ENDPOINTS_VARIABLE = 'ENDPOINTS';

/**
 * `ENDPOINTS` from the environment, else from `.env`: comma-separated endpoint names, checked with
 * the receiver's own rule; `undefined` (the single endpoint) when blank, or unset in both.
 *
 * @param env - the environment
 * @param dotEnv - the variables of `.env`
 * @throws {UsageError} naming the offending entry when a name breaks the rule or comes twice
 */
export function endpointsFrom(
  env: NodeJS.ProcessEnv,
  dotEnv: Readonly<Record<string, string>>,
): readonly string[] | undefined {
  // Set in the environment, even empty, it wins over .env: `ENDPOINTS= npm start` (and the tools
  // that start their own receiver) get the single endpoint whatever .env says.
  const text = (env[ENDPOINTS_VARIABLE] ?? dotEnv[ENDPOINTS_VARIABLE])?.trim();
  if (!text) return undefined;
  const names = text.split(',').map((name) => name.trim());
  for (const [index, name] of names.entries()) {
    if (!isEndpointName(name)) {
      throw new UsageError(
        `${ENDPOINTS_VARIABLE}: endpoint name '${name}' must be ${ENDPOINT_NAME_RULE} (got '${text}')`,
      );
    }
    if (names.indexOf(name) !== index) {
      throw new UsageError(`${ENDPOINTS_VARIABLE} names endpoint '${name}' twice`);
    }
  }
  return names;
}

/**
 * The variable holding an endpoint's local key: `WEBHOOK_SECRET_` and the name upper-cased with
 * `-` as `_` (`eu-west` -> `WEBHOOK_SECRET_EU_WEST`). Names have no `_`, so no two share one.
 *
 * @param name - a valid endpoint name
 */
export function endpointKeyVariable(name: string): string {
  return `WEBHOOK_SECRET_${name.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * `INSPECTOR`: `on` serves the inspector whatever the host, `off` never; unset is `auto`.
 *
 * @throws {UsageError} for any other value
 */
function inspectorModeFrom(env: NodeJS.ProcessEnv): InspectorMode {
  const text = env.INSPECTOR?.trim().toLowerCase();
  if (!text) return 'auto';
  if (text === 'on' || text === 'off') return text;
  throw new UsageError(
    `INSPECTOR must be 'on' or 'off' (unset: loopback only), got '${env.INSPECTOR}'`,
  );
}

/**
 * A TCP port from the environment, or `fallback` when unset.
 *
 * @throws {UsageError} when set to anything but a whole number from 0 to 65535
 */
export function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port <= 65_535)) {
    throw new UsageError(`${name} must be a port number from 0 to 65535, got '${text}'`);
  }
  return port;
}
