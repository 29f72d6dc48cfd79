/**
 * The tools' one rule for network calls: each call (an HTTP request, one AWS SDK command with its
 * retries) gets at most {@link NETWORK_TIMEOUT_MS}, and a call that fails for the network's sake
 * becomes a {@link NetworkError} (exit 4) naming what was called and why.
 * @module
 */
import { NetworkError } from './exit-status.js';

/**
 * How long a tool waits for one network call before giving up: long enough for a cold Lambda
 * behind API Gateway and for the SDK's retries, short enough that a server that accepts the
 * connection and never answers does not hang a terminal or a script.
 */
export const NETWORK_TIMEOUT_MS = 30_000;

/** Node's codes for a connection that could not be made or was cut, and how to say so. */
const CONNECTION_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'no such host (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/**
 * Runs one network call with a timeout: `call` gets a signal that aborts after `timeoutMs`, or as
 * soon as `stop` does.
 *
 * @param what - the call, for messages, e.g. `POST http://127.0.0.1:3000/webhook`
 * @param timeoutMs - how long the call may take (see {@link NETWORK_TIMEOUT_MS})
 * @param call - the call, which must honour the signal
 * @param options - `stop` (the user's Ctrl-C: rethrown as is, not a network failure) and the
 *   `refusedHint` added to a refused connection's message
 * @throws {NetworkError} when the call timed out or its connection failed; other errors (an
 *   answer the service gave, a stop) are rethrown unchanged
 */
export async function withTimeout<T>(
  what: string,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
  options: { readonly stop?: AbortSignal; readonly refusedHint?: string } = {},
): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.stop === undefined ? timeout : AbortSignal.any([options.stop, timeout]);
  try {
    return await call(signal);
  } catch (error) {
    if (options.stop?.aborted) throw error;
    if (timeout.aborted) {
      throw new NetworkError(`${what}: no answer within ${formatSeconds(timeoutMs)}`, {
        cause: error,
      });
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
    const failure = CONNECTION_FAILURES[code];
    if (failure === undefined) throw error;
    const hint = code === 'ECONNREFUSED' && options.refusedHint ? ` (${options.refusedHint})` : '';
    throw new NetworkError(`${what}: ${failure}${hint}`, { cause: error });
  }
}

/** `30 s`, `0.5 s`. */
function formatSeconds(ms: number): string {
  return `${ms / 1000} s`;
}
