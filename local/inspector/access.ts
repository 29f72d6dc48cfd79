import type { IncomingMessage } from 'node:http';
import { isLoopbackHost, isLoopbackHostHeader } from '../../devkit/local-run.js';

/** `INSPECTOR`: `auto` (unset) serves loopback only, `on` serves any host, `off` never serves. */
export type InspectorMode = 'auto' | 'on' | 'off';

/**
 * Why the inspector refuses a request, or `undefined` when it may answer. A request sent by a page
 * of another origin is always refused: its `Origin` (which browsers put on every POST, and set to
 * `null` for sandboxed frames and `file:` pages) must name the server the request is addressed
 * to. In `auto` mode it answers only when the server listens on loopback and the `Host` header
 * names loopback (so a page of another site cannot reach it through DNS rebinding);
 * `INSPECTOR=on` lifts these two checks.
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
  if (mode === 'on') return undefined;
  if (!isLoopbackHost(listenHost)) {
    return `the inspector is served only when HOST is a loopback address (HOST=${listenHost}); set INSPECTOR=on to serve it anyway`;
  }
  if (!isLoopbackHostHeader(host)) {
    return 'the inspector answers only requests addressed to 127.0.0.1, localhost or [::1]';
  }
  return undefined;
}

/** Whether `origin` is `http://<host>`: the inspector page's own origin. `null` and junk are not. */
function isOriginOf(origin: string, host: string | undefined): boolean {
  if (host === undefined || !URL.canParse(origin)) return false;
  const url = new URL(origin);
  return url.protocol === 'http:' && url.host === host.toLowerCase();
}
