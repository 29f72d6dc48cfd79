/**
 * Runs `call` with a signal that aborts after `ms` with a `TimeoutError`, as
 * `AbortSignal.timeout(ms)` does, and clears the timer as soon as the call settles.
 *
 * `AbortSignal.timeout`'s timer outlives a call that finished: it fires `ms` later, in whatever
 * invocation runs then, to build a `DOMException` and dispatch an abort nobody waits for any
 * more, and under load thousands of them are pending at once. The calls made for every webhook
 * (SendMessage, PutRecord) use this instead; a key load, once per environment and cache period,
 * keeps `AbortSignal.timeout`.
 *
 * @param ms - time allowed, in milliseconds
 * @param call - the call, given the signal to pass on
 */
export async function withAbortAfter<T>(
  ms: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      ),
    ms,
  );
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
