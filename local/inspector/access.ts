import type { IncomingMessage } from 'node:http';
import {
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackHostHeader,
  isLoopbackOrAddressHostHeader,
  LOOPBACK_NAMES_TEXT,
} from '../../devkit/local-run.js';
import type { StoredDelivery } from './delivery.js';

/**
 * `INSPECTOR`: `auto` (unset) serves loopback only, `on` serves other machines too (addressed by
 * IP address), `off` never serves.
 */
export type InspectorMode = 'auto' | 'on' | 'off';

/**
 * Why the inspector refuses a request, or `undefined` when it may answer. A request sent by a page
 * of another origin is always refused: its `Origin` (which browsers put on every POST, and set to
 * `null` for sandboxed frames and `file:` pages) must name the server the request is addressed
 * to. In `auto` mode it answers only when the server listens on loopback and the `Host` header
 * names loopback; `INSPECTOR=on` serves whatever `HOST` is and also answers a `Host` that is an
 * IP address. Either way a `Host` that is a DNS name (other than `localhost`) is refused: a page
 * of another site reaching the server through DNS rebinding sends the name it controls there, and
 * its own origin, which that name makes the server's.
 */
export function refusalOf(
  request: IncomingMessage,
  mode: Exclude<InspectorMode, 'off'>,
  listenHost: string,
): string | undefined {
  const { origin, host } = request.headers;
  if (origin !== undefined && !isOriginOf(origin, host)) {
    return 'the inspector answers only its own page, not a request sent by another site';
  }
  if (mode === 'on') {
    return isLoopbackOrAddressHostHeader(host)
      ? undefined
      : `the inspector answers only requests addressed to an IP address, ${LOOPBACK_NAMES_TEXT}, not to a host name (a page of another site could use one through DNS rebinding)`;
  }
  if (!isLoopbackHost(listenHost)) {
    return `the inspector is served only when HOST is a loopback address (HOST=${listenHost}); set INSPECTOR=on to serve it anyway`;
  }
  if (!isLoopbackHostHeader(host)) {
    return `the inspector answers only requests addressed to ${LOOPBACK_NAMES_TEXT}`;
  }
  return undefined;
}

/**
 * Why a replay of `delivery` with a fresh signature is refused, or `undefined` when it may be
 * made. It signs the kept body with the local key, so it is made only for a connection from this
 * machine (the socket's address, which a client cannot choose as it chooses headers: with
 * `INSPECTOR=on` another machine may read and replay exactly, but not have the key sign a body it
 * posted), and never of a call this machine did not send ({@link StoredDelivery.freshSignatureRefusal}:
 * a web page's, or another machine's).
 */
export function freshReplayRefusal(
  request: IncomingMessage,
  delivery: Pick<StoredDelivery, 'freshSignatureRefusal'>,
): string | undefined {
  const address = request.socket.remoteAddress;
  if (!isLoopbackAddress(address)) {
    return `a replay with a fresh signature signs with this machine's local key, so only this machine may ask for one (this request came from ${address ?? 'an unknown address'}); replay the exact request instead`;
  }
  return delivery.freshSignatureRefusal;
}

/** Whether `origin` is `http://<host>`: the inspector page's own origin. `null` and junk are not. */
function isOriginOf(origin: string, host: string | undefined): boolean {
  if (host === undefined || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  return url.protocol === 'http:' && url.host === host.toLowerCase();
}
