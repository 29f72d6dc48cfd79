import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { LOCAL_KEY_VARIABLE } from '../contract/endpoints.js';
import {
  type AcceptedKeys,
  acceptedKeysFrom,
  isPreviousKeyInGrace,
  type SecretVersion,
  type SkippedVersion,
  stageVersionIds,
} from './decision/key-set.js';
import type { KeyRefresh } from './decision/receive.js';
import { KeyLoadError } from './decision/receive.js';

/**
 * Loads the accepted key set once; {@link CachedKeyRing} decides when to call it.
 * `deadlineAt` (epoch milliseconds) is when the load must have given up, so the invocation can
 * still answer 503 before the function times out.
 */
export type KeyLoader = (deadlineAt?: number) => Promise<AcceptedKeys>;

/** Options of {@link CachedKeyRing}. */
export interface CachedKeyRingOptions {
  /** `SECRET_CACHE_SECONDS`: how long a loaded key set is used before it is reloaded. */
  readonly cacheSeconds: number;
  /**
   * Minimum time between load attempts triggered by a signature mismatch or after a failed load,
   * so forged calls or an outage cannot turn into a flood of Secrets Manager calls.
   * @default 30
   */
  readonly minReloadIntervalSeconds?: number;
  /**
   * Clock in milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /** Told about every failed load, and whether the previous (stale) keys are still in use. */
  readonly onLoadFailure?: (error: KeyLoadError, usingStaleKeys: boolean) => void;
  /** Told about every successful load (the dashboard shows loads beside failures). */
  readonly onLoaded?: () => void;
}

/** A {@link KeySource} whose loads can be given a deadline (epoch milliseconds) per call. */
export interface DeadlineKeySource {
  current(deadlineAt?: number): Promise<AcceptedKeys>;
  refreshAfterMismatch(deadlineAt?: number): Promise<KeyRefresh>;
}

/**
 * Caches the accepted keys for `cacheSeconds` and reloads them early after a signature
 * mismatch, at most once per `minReloadIntervalSeconds` per container.
 *
 * When a reload fails and keys were loaded before, the old keys stay in use (stale-while-error):
 * an outage of Secrets Manager then does not turn calls signed with them into 503s. A revoked key
 * therefore stays accepted until Secrets Manager answers again. Until a load succeeds again,
 * {@link CachedKeyRing.refreshAfterMismatch} reports `unavailable`, so a call signed with a key
 * rotated in since the last good load gets a 503 (retried), not a 401. Without any loaded keys, a
 * failure is thrown as {@link KeyLoadError} (503), and the next attempt waits
 * `minReloadIntervalSeconds`.
 */
export class CachedKeyRing implements DeadlineKeySource {
  readonly #load: KeyLoader;
  readonly #cacheMs: number;
  readonly #minReloadMs: number;
  readonly #now: () => number;
  readonly #onLoadFailure: ((error: KeyLoadError, usingStaleKeys: boolean) => void) | undefined;
  readonly #onLoaded: (() => void) | undefined;
  #cached: { keys: AcceptedKeys; loadedAt: number } | undefined;
  #lastAttemptAt: number | undefined;
  #lastFailure: KeyLoadError | undefined;
  #inFlight: Promise<AcceptedKeys | undefined> | undefined;

  /**
   * @param load - fetches the key set, throwing {@link KeyLoadError} on failure
   * @param options - cache and rate-limit settings
   */
  constructor(load: KeyLoader, options: CachedKeyRingOptions) {
    this.#load = load;
    this.#cacheMs = options.cacheSeconds * 1000;
    this.#minReloadMs = (options.minReloadIntervalSeconds ?? 30) * 1000;
    this.#now = options.now ?? Date.now;
    this.#onLoadFailure = options.onLoadFailure;
    this.#onLoaded = options.onLoaded;
  }

  /**
   * @inheritDoc
   * @param deadlineAt - when a load started by this call must give up, epoch milliseconds
   */
  async current(deadlineAt?: number): Promise<AcceptedKeys> {
    const cached = this.#cached;
    if (cached !== undefined && this.#now() - cached.loadedAt < this.#cacheMs) return cached.keys;
    const keys =
      this.#lastFailure !== undefined && this.#recentlyAttempted()
        ? this.#cached?.keys
        : await this.#reload(deadlineAt);
    if (keys !== undefined) return keys;
    throw this.#lastFailure ?? new KeyLoadError('No key set loaded');
  }

  /**
   * @inheritDoc
   * @param deadlineAt - when a load started by this call must give up, epoch milliseconds
   */
  async refreshAfterMismatch(deadlineAt?: number): Promise<KeyRefresh> {
    const before = this.#cached?.keys;
    // Within the rate limit, wait for a load still in flight rather than judge by the one before.
    await (this.#recentlyAttempted() ? this.#inFlight : this.#reload(deadlineAt));
    // Set until a load succeeds, whether this call's load failed or the latest one before it.
    if (this.#lastFailure !== undefined) return { kind: 'unavailable', error: this.#lastFailure };
    const after = this.#cached?.keys;
    return after !== undefined && !sameKeys(before, after)
      ? { kind: 'refreshed', keys: after }
      : { kind: 'unchanged' };
  }

  #recentlyAttempted(): boolean {
    return (
      this.#lastAttemptAt !== undefined && this.#now() - this.#lastAttemptAt < this.#minReloadMs
    );
  }

  /** One load at a time; concurrent callers (local server, tests) share it. */
  #reload(deadlineAt: number | undefined): Promise<AcceptedKeys | undefined> {
    this.#inFlight ??= this.#attemptLoad(deadlineAt).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** Resolves to the fresh keys, the stale keys after a failure, or undefined if there are none. */
  async #attemptLoad(deadlineAt: number | undefined): Promise<AcceptedKeys | undefined> {
    this.#lastAttemptAt = this.#now();
    try {
      const keys = await this.#load(deadlineAt);
      this.#cached = { keys, loadedAt: this.#now() };
      this.#lastFailure = undefined;
      this.#onLoaded?.();
      return keys;
    } catch (error) {
      const failure =
        error instanceof KeyLoadError
          ? error
          : new KeyLoadError('Loading the signing keys failed', { cause: error });
      this.#lastFailure = failure;
      this.#onLoadFailure?.(failure, this.#cached !== undefined);
      return this.#cached?.keys;
    }
  }
}

function sameKeys(a: AcceptedKeys | undefined, b: AcceptedKeys): boolean {
  return (
    a !== undefined &&
    a.keys.length === b.keys.length &&
    a.keys.every((key, index) => key === b.keys[index] && a.labels[index] === b.labels[index])
  );
}

/** Options of {@link secretsManagerKeyLoader}. */
export interface SecretsManagerKeyLoaderOptions {
  /** `PREVIOUS_KEY_GRACE_SECONDS`; 0 never accepts `AWSPREVIOUS`. */
  readonly previousKeyGraceSeconds: number;
  /** `SECRET_JSON_FIELD`: the field of a JSON secret that holds the key. */
  readonly jsonField?: string | undefined;
  /**
   * Upper bound for one load including the SDK's retries, in milliseconds, when the caller
   * gives no deadline.
   * @default 5000
   */
  readonly deadlineMs?: number;
  /**
   * Clock in milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /** Told about a pending or previous version left out of the key set (a warning to log). */
  readonly onSkippedVersion?: (skipped: SkippedVersion) => void;
}

/**
 * Loads the accepted keys of one secret with the fewest round trips that also give each
 * version's creation date: `DescribeSecret` (which versions carry `AWSCURRENT`, `AWSPENDING`,
 * `AWSPREVIOUS`), then `GetSecretValue` by version id for every stage present, in parallel, so a
 * load costs two round trips however slow Secrets Manager is. The previous key is kept only while
 * current is inside the grace period (its `CreatedDate` comes back with the current value).
 * Absent stages cost nothing and never show up as errors; both actions are exactly what CDK's
 * `secret.grantRead()` grants. Each call's timeout (per attempt and for all the SDK's retries)
 * is the time left until the deadline, so a slow but answering Secrets Manager still serves and a
 * silent one is given up on in time to answer 503.
 *
 * Powertools Parameters is deliberately not used: it caches by secret name only, so asking it
 * for `AWSPREVIOUS` can return the cached `AWSCURRENT`, and it does not return `CreatedDate`.
 *
 * @param client - Secrets Manager client (its retry settings apply)
 * @param secretId - `SECRET_ID`, name or ARN
 * @param options - grace period, JSON field, default deadline, clock and warning sink
 */
export function secretsManagerKeyLoader(
  client: SecretsManagerClient,
  secretId: string,
  options: SecretsManagerKeyLoaderOptions,
): KeyLoader {
  const now = options.now ?? Date.now;
  const defaultDeadlineMs = options.deadlineMs ?? 5000;
  return async (deadlineAt = now() + defaultDeadlineMs) => {
    // Every call gets the time left: per attempt (requestTimeout) and for all retries (signal).
    const timeLeft = () => {
      const ms = Math.max(1, deadlineAt - now());
      return { abortSignal: AbortSignal.timeout(ms), requestTimeout: ms };
    };
    const failed = (step: string, stage?: string) => (error: unknown) => {
      const which = stage === undefined ? '' : ` (${stage})`;
      throw new KeyLoadError(`${step} of ${secretId}${which} failed`, { cause: error });
    };
    const described = await client
      .send(new DescribeSecretCommand({ SecretId: secretId }), timeLeft())
      .catch(failed('DescribeSecret'));
    const ids = stageVersionIds(described.VersionIdsToStages);
    if (ids.current === undefined) {
      throw new KeyLoadError(`Secret ${secretId} has no AWSCURRENT version`);
    }
    const fetchVersion = async (versionId: string, stage: string): Promise<SecretVersion> => {
      const value = await client
        .send(new GetSecretValueCommand({ SecretId: secretId, VersionId: versionId }), timeLeft())
        .catch(failed('GetSecretValue', stage));
      return { secretString: value.SecretString, createdAt: value.CreatedDate };
    };
    const optionalVersion = (versionId: string | undefined, stage: string) =>
      versionId === undefined || versionId === ids.current
        ? Promise.resolve(undefined)
        : fetchVersion(versionId, stage).catch(absentWhenNotFound);

    const [current, pending, previous] = await Promise.all([
      fetchVersion(ids.current, 'AWSCURRENT'),
      optionalVersion(ids.pending, 'AWSPENDING'),
      optionalVersion(ids.previous, 'AWSPREVIOUS'),
    ]);
    const inGrace = isPreviousKeyInGrace(
      current.createdAt,
      now() / 1000,
      options.previousKeyGraceSeconds,
    );
    const result = acceptedKeysFrom(
      { current, pending, previous: inGrace ? previous : undefined },
      options.jsonField,
    );
    if (!result.ok) throw new KeyLoadError(`Secret ${secretId}: ${result.problem}`);
    for (const skipped of result.skipped) options.onSkippedVersion?.(skipped);
    return result.accepted;
  };
}

/** A stage can move between DescribeSecret and GetSecretValue (a rotation finishing): absent. */
function absentWhenNotFound(error: unknown): undefined {
  if (error instanceof KeyLoadError && error.cause instanceof ResourceNotFoundException) return;
  throw error;
}

/** The stage of the one key of {@link staticKeySource}: the variable it comes from. */
export const STATIC_KEY_STAGE = LOCAL_KEY_VARIABLE;

/**
 * A fixed key from `WEBHOOK_SECRET`, for local runs: no rotation, nothing to reload.
 *
 * @param key - the key; surrounding whitespace is trimmed like a Secrets Manager value
 */
export function staticKeySource(key: string): DeadlineKeySource {
  const keys: AcceptedKeys = { keys: [key.trim()], labels: [STATIC_KEY_STAGE] };
  return {
    current: () => Promise.resolve(keys),
    refreshAfterMismatch: () => Promise.resolve({ kind: 'unchanged' }),
  };
}
