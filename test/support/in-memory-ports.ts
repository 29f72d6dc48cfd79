import type { AcceptedKeys } from '../../lambda/receiver/decision/key-set.js';
import type {
  KeyLoadError,
  KeySource,
  MessageSink,
  SinkMessage,
} from '../../lambda/receiver/decision/receive.js';

/** A {@link MessageSink} that keeps messages in memory, or fails with the given error. */
export interface MemorySink extends MessageSink {
  readonly messages: SinkMessage[];
  /** Makes every following send throw `error` (or succeed again with `undefined`). */
  failWith(error: Error | undefined): void;
}

/** Creates an empty {@link MemorySink}. */
export function memorySink(): MemorySink {
  const messages: SinkMessage[] = [];
  let failure: Error | undefined;
  return {
    messages,
    failWith(error) {
      failure = error;
    },
    async send(message) {
      if (failure !== undefined) throw failure;
      messages.push(message);
    },
  };
}

/** A {@link KeySource} with fixed keys, counting reload requests; `rotateTo` stages new keys. */
export interface MemoryKeySource extends KeySource {
  /** How often `refreshAfterMismatch` was called. */
  readonly refreshRequests: number;
  /** Keys that the next `refreshAfterMismatch` returns (a rotation the cache has not seen). */
  rotateTo(keys: AcceptedKeys): void;
  /** Makes `current` throw `error` (or work again with `undefined`). */
  failWith(error: Error | undefined): void;
  /**
   * Makes `refreshAfterMismatch` report `unavailable` with `error` while `current` keeps serving
   * the keys (stale-while-error), or report normally again with `undefined`.
   */
  failRefreshWith(error: KeyLoadError | undefined): void;
}

/**
 * Creates a {@link MemoryKeySource}.
 *
 * @param keys - the keys `current` returns, labelled `AWSCURRENT`, `AWSPENDING`, `AWSPREVIOUS`
 */
export function memoryKeySource(...keys: string[]): MemoryKeySource {
  const stages = ['AWSCURRENT', 'AWSPENDING', 'AWSPREVIOUS'];
  let current: AcceptedKeys = { keys, labels: keys.map((_, index) => stages[index] ?? 'extra') };
  let staged: AcceptedKeys | undefined;
  let failure: Error | undefined;
  let refreshFailure: KeyLoadError | undefined;
  let refreshRequests = 0;
  return {
    get refreshRequests() {
      return refreshRequests;
    },
    rotateTo(keys) {
      staged = keys;
    },
    failWith(error) {
      failure = error;
    },
    failRefreshWith(error) {
      refreshFailure = error;
    },
    async current() {
      if (failure !== undefined) throw failure;
      return current;
    },
    async refreshAfterMismatch() {
      refreshRequests += 1;
      if (refreshFailure !== undefined) return { kind: 'unavailable', error: refreshFailure };
      if (staged === undefined) return { kind: 'unchanged' };
      current = staged;
      staged = undefined;
      return { kind: 'refreshed', keys: current };
    },
  };
}
