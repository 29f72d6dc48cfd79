import {
  endpointsFrom,
  isLoopbackHost,
  LOCAL_PORTS,
  LOOPBACK,
  localPort,
  localStateDir,
} from '../devkit/local-run.js';
import { UsageError } from '../devkit/tool-io.js';
import type { InspectorMode } from './inspector/access.js';

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

/**
 * Reads `PORT` (default 3000), `HOST` (default 127.0.0.1), `LOCAL_SQS_PORT` (default 9324),
 * `LOCAL_S3_PORT` (default 9325), `INSPECTOR` (default `auto`), `LOCAL_STATE_DIR` (default
 * `.local/queues`, relative to `cwd`) and `ENDPOINTS` (from the environment, else from `.env`; default: the single endpoint).
 * Blank values count as unset.
 *
 * @param env - the environment
 * @param cwd - the directory `LOCAL_STATE_DIR` is relative to
 * @param dotEnv - the variables of `.env` (see `readDotEnv`)
 * @throws {UsageError} when a port is not a whole number from 0 to 65535, two of the ports are the
 *   same number other than 0, `INSPECTOR` is not `on` or `off`, or `ENDPOINTS` is not a list of
 *   distinct endpoint names
 */
export function readStartConfig(
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
  dotEnv: Readonly<Record<string, string>> = {},
): StartConfig {
  const port = localPort(env, 'webhook');
  const localSqsPort = localPort(env, 'queue');
  const localS3Port = localPort(env, 'archive');
  refuseSharedPort(env, { webhook: port, queue: localSqsPort, archive: localS3Port });
  return {
    port,
    host: env.HOST?.trim() || LOOPBACK,
    localSqsPort,
    localS3Port,
    inspector: inspectorModeFrom(env),
    stateDir: localStateDir(env, cwd),
    endpoints: endpointsFrom(env, dotEnv),
  };
}

/** Whether the inspector answers at all: `INSPECTOR=on`, or unset with a loopback `HOST`. */
export function servesInspector(config: Pick<StartConfig, 'inspector' | 'host'>): boolean {
  return config.inspector === 'on' || (config.inspector === 'auto' && isLoopbackHost(config.host));
}

/**
 * The banner's warnings when `HOST` lets other machines in: the webhook endpoint is reachable,
 * and so is the inspector when `INSPECTOR=on` serves it there (its fresh-signature replays stay
 * this machine's); none on loopback.
 */
export function networkExposureWarnings(config: Pick<StartConfig, 'inspector' | 'host'>): string[] {
  if (isLoopbackHost(config.host)) return [];
  return [
    `HOST=${config.host}: the webhook endpoint is reachable from other machines (the queue stays on 127.0.0.1).`,
    ...(servesInspector(config)
      ? [
          'INSPECTOR=on: the inspector is reachable from other machines too, by IP address (every delivery, personal data included, and exact replays); a replay with a fresh signature is answered to this machine only.',
        ]
      : []),
  ];
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
 * Two parts of the local run on one port: the second to listen would fail with "port already in
 * use" and a hint to change its own variable, although no other process holds the port and the
 * mistake may be in the other variable. 0 (any free port) is never shared.
 *
 * @param env - the environment, to tell a port that was set from a default
 * @param ports - each part's port
 * @throws {UsageError} naming both variables and the port
 */
function refuseSharedPort(
  env: NodeJS.ProcessEnv,
  ports: Readonly<Record<keyof typeof LOCAL_PORTS, number>>,
): void {
  const parts = Object.keys(LOCAL_PORTS) as (keyof typeof LOCAL_PORTS)[];
  for (const [index, part] of parts.entries()) {
    const other = parts.slice(index + 1).find((later) => ports[later] === ports[part]);
    if (other === undefined || ports[part] === 0) continue;
    throw new UsageError(
      `${describePort(env, part)} and ${describePort(env, other)} name the same port: give each its own port (0 = any free port)`,
    );
  }
}

/** `PORT=9600` as set, or `LOCAL_SQS_PORT (default 9324)` when unset. */
function describePort(env: NodeJS.ProcessEnv, part: keyof typeof LOCAL_PORTS): string {
  const { variable, default: fallback } = LOCAL_PORTS[part];
  const text = env[variable]?.trim();
  return text ? `${variable}=${text}` : `${variable} (default ${fallback})`;
}
