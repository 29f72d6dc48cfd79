import type { IncomingMessage } from 'node:http';

/** `INSPECTOR`: `auto` (unset) serves loopback only, `on` serves any host, `off` never serves. */
export type InspectorMode = 'auto' | 'on' | 'off';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether an interface or host name is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase());
}

/**
 * Why the inspector refuses a request, or `undefined` when it may answer. In `auto` mode it
 * answers only when the server listens on loopback and the `Host` header names loopback (so a page
 * of another site cannot reach it through DNS rebinding); `INSPECTOR=on` lifts both checks.
 */
export function refusalOf(
  request: IncomingMessage,
  mode: Exclude<InspectorMode, 'off'>,
  listenHost: string,
): string | undefined {
  if (mode === 'on') return undefined;
  if (!isLoopbackHost(listenHost)) {
    return `the inspector is served only when HOST is a loopback address (HOST=${listenHost}); set INSPECTOR=on to serve it anyway`;
  }
  const host = request.headers.host ?? '';
  const name = host.replace(/:\d+$/, '');
  if (!isLoopbackHost(name)) {
    return 'the inspector answers only requests addressed to 127.0.0.1, localhost or [::1]';
  }
  return undefined;
}
