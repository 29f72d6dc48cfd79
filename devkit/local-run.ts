/**
 * Where the local run lives and how it is named: its ports, paths, queue names and the variables
 * that name its endpoints. `npm start` serves what these say and every tool finds it through
 * them, so each is spelled here once.
 * @module
 */

import { BlockList, isIP } from 'node:net';
import { resolve } from 'node:path';
import { ENDPOINT_NAME_RULE, isEndpointName, splitList } from '../lambda/contract/endpoints.js';
import { UsageError } from './tool-io.js';

/** The IPv4 loopback address: local servers listen here unless told otherwise. */
export const LOOPBACK = '127.0.0.1';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The loopback names a local server answers, as messages list them: `127.0.0.1, localhost or [::1]`. */
export const LOOPBACK_NAMES_TEXT = '127.0.0.1, localhost or [::1]';

/** Whether an interface or host name is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase());
}

/**
 * Whether a `Host` header names this machine's loopback (`127.0.0.1`, `localhost` or `[::1]`,
 * with or without a port). A page of another site that reaches a local server through DNS
 * rebinding sends its own host name here, so a server that only answers loopback names cannot be
 * reached that way.
 */
export function isLoopbackHostHeader(host: string | undefined): boolean {
  return isLoopbackHost(hostWithoutPort(host));
}

/**
 * Whether a `Host` header names loopback or an IP address (`192.168.1.20:3000`,
 * `[fd00::2]:3000`), not a DNS name: how webpack-dev-server's `allowedHosts: 'auto'` lets other
 * machines in. A page of another site that reaches a server through DNS rebinding needs a name
 * whose DNS its owner controls, and sends that name here; an address is nobody's to rebind.
 */
export function isLoopbackOrAddressHostHeader(host: string | undefined): boolean {
  const name = hostWithoutPort(host);
  if (isLoopbackHost(name)) return true;
  const bracketed = /^\[([^\]]+)\]$/.exec(name)?.[1];
  return bracketed === undefined ? isIP(name) === 4 : isIP(bracketed) === 6;
}

/** The host of a `Host` header, its port left out (an IPv6 address keeps its brackets). */
function hostWithoutPort(host: string | undefined): string {
  return (host ?? '').replace(/:\d+$/, '');
}

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK_ADDRESSES.addAddress('::1', 'ipv6');

/**
 * Whether a socket's remote address is this machine's loopback: `127.0.0.0/8` or `::1`, IPv4
 * written IPv4-mapped (`::ffff:127.0.0.1`, as a dual-stack socket reports it) included. Unlike a
 * `Host` header, which the client writes, the kernel says where a connection came from.
 */
export function isLoopbackAddress(address: string | undefined = ''): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK_ADDRESSES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Port of the local webhook endpoint when `PORT` is not set. */
const DEFAULT_PORT = 3000;

/** Name of the queue the receiver forwards verified events to (same name as in the deployed stack). */
export const QUEUE_NAME = 'webhook-events';

/** Name of the dead-letter queue that takes messages a consumer failed to process. */
export const DLQ_NAME = 'webhook-events-dlq';

/** Port of the embedded queue server when `LOCAL_SQS_PORT` is not set. */
const DEFAULT_LOCAL_SQS_PORT = 9324;

/** The region of the local run: its clients sign for it, and it appears in local queue ARNs. */
export const LOCAL_REGION = 'us-east-1';

/** Cosmetic account id that appears in local queue URLs and ARNs. */
export const LOCAL_ACCOUNT_ID = '123456789012';

/**
 * The URL a queue of the embedded server has on a given port; used by tools that default to the
 * local queue without starting it.
 */
export function localQueueUrl(port: number = DEFAULT_LOCAL_SQS_PORT, name = QUEUE_NAME): string {
  return `http://${LOOPBACK}:${port}/${LOCAL_ACCOUNT_ID}/${name}`;
}

/** Port of the local archive (S3, and the Firehose stand-in) when `LOCAL_S3_PORT` is not set. */
const DEFAULT_LOCAL_S3_PORT = 9325;

/** The local archive's bucket, and the delivery stream name the local receiver is given. */
export const LOCAL_ARCHIVE = { bucket: 'webhook-archive', stream: 'webhook-archive' } as const;

/** The origin of the local archive on a port: its S3 endpoint and `AWS_ENDPOINT_URL_FIREHOSE`. */
export function localArchiveEndpoint(port: number = DEFAULT_LOCAL_S3_PORT): string {
  return `http://${LOOPBACK}:${port}`;
}

/** The state folder of `npm start` when `LOCAL_STATE_DIR` is not set (git-ignored). */
export const DEFAULT_STATE_DIR = '.local/queues';

/**
 * The state folder `LOCAL_STATE_DIR` names (blank counts as unset), absolute: where `npm start`
 * keeps the queues' journal, the archive and the archive's credentials, and where the tools
 * find those credentials.
 *
 * @param env - the environment
 * @param cwd - the directory a relative `LOCAL_STATE_DIR` is relative to
 */
export function localStateDir(env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(cwd, env.LOCAL_STATE_DIR?.trim() || DEFAULT_STATE_DIR);
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

/** The local run's ports: the variable that sets each, and its default. */
export const LOCAL_PORTS = {
  /** The webhook endpoint and the inspector. */
  webhook: { variable: 'PORT', default: DEFAULT_PORT },
  /** The embedded queue. */
  queue: { variable: 'LOCAL_SQS_PORT', default: DEFAULT_LOCAL_SQS_PORT },
  /** The local archive (S3 and the Firehose stand-in). */
  archive: { variable: 'LOCAL_S3_PORT', default: DEFAULT_LOCAL_S3_PORT },
} as const;

/**
 * The port of one part of the local run, from its variable, else its default.
 *
 * @param env - the environment
 * @param part - which port
 * @throws {UsageError} naming the variable when its value is not a port
 */
export function localPort(env: NodeJS.ProcessEnv, part: keyof typeof LOCAL_PORTS): number {
  const { variable, default: fallback } = LOCAL_PORTS[part];
  return portFrom(env, variable, fallback);
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
  const names = splitList(text);
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
