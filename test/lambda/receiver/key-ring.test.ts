import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import type { AcceptedKeys } from '../../../lambda/receiver/decision/key-set.js';
import { KeyLoadError } from '../../../lambda/receiver/decision/receive.js';
import {
  CachedKeyRing,
  secretsManagerKeyLoader,
  staticKeySource,
} from '../../../lambda/receiver/key-ring.js';
import { fakeSecretVersions } from '../../support/secrets-manager.js';

const NOW_MS = 1_795_000_000_000;
const HOUR_MS = 3_600_000;
const DAY_SECONDS = 86_400;

function secretsManager() {
  const client = new SecretsManagerClient({ region: 'eu-west-1' });
  return { client, mock: mockClient(client) };
}

const version = (versionId: string, value: string, ageMs: number, stages: string[]) => ({
  versionId,
  value,
  createdAt: new Date(NOW_MS - ageMs),
  stages,
});

describe('Function: secretsManagerKeyLoader', () => {
  const load = (client: SecretsManagerClient, graceSeconds = DAY_SECONDS) =>
    secretsManagerKeyLoader(client, 'webhook/key', {
      previousKeyGraceSeconds: graceSeconds,
      now: () => NOW_MS,
    })();

  it('loads only AWSCURRENT, with two calls, when no other stage exists', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v1', 'key-one\n', 100 * 24 * HOUR_MS, ['AWSCURRENT'])]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys).toEqual({ keys: ['key-one'], labels: ['AWSCURRENT'] });
    expect(mock.calls()).toHaveLength(2);
    expect(mock.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({
      SecretId: 'webhook/key',
      VersionId: 'v1',
    });
  });

  it('accepts an AWSPENDING key staged ahead of the sender switching to it', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [
      version('v1', 'key-one', 100 * HOUR_MS, ['AWSCURRENT']),
      version('v2', 'key-two', HOUR_MS, ['AWSPENDING']),
    ]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys).toEqual({ keys: ['key-one', 'key-two'], labels: ['AWSCURRENT', 'AWSPENDING'] });
  });

  it('accepts AWSPREVIOUS while AWSCURRENT is younger than the grace period', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [
      version('v2', 'key-two', 23 * HOUR_MS, ['AWSCURRENT']),
      version('v1', 'key-one', 900 * HOUR_MS, ['AWSPREVIOUS']),
    ]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys).toEqual({ keys: ['key-two', 'key-one'], labels: ['AWSCURRENT', 'AWSPREVIOUS'] });
  });

  it('drops AWSPREVIOUS, fetched in parallel with AWSCURRENT, once AWSCURRENT is older than the grace period', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [
      version('v2', 'key-two', 25 * HOUR_MS, ['AWSCURRENT']),
      version('v1', 'key-one', 900 * HOUR_MS, ['AWSPREVIOUS']),
    ]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys).toEqual({ keys: ['key-two'], labels: ['AWSCURRENT'] });
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('never accepts AWSPREVIOUS when the grace period is 0', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [
      version('v2', 'key-two', 1000, ['AWSCURRENT']),
      version('v1', 'key-one', 900 * HOUR_MS, ['AWSPREVIOUS']),
    ]);

    // Act
    const keys = await load(client, 0);

    // Assess
    expect(keys.keys).toEqual(['key-two']);
  });

  it('revokes the old key when the AWSPREVIOUS label is removed, even inside the grace period', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [
      version('v2', 'key-two', HOUR_MS, ['AWSCURRENT']),
      version('v1', 'key-one', 900 * HOUR_MS, []),
    ]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys.keys).toEqual(['key-two']);
  });

  it('fetches a version once when it carries both AWSCURRENT and AWSPENDING', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v2', 'key-two', HOUR_MS, ['AWSCURRENT', 'AWSPENDING'])]);

    // Act
    const keys = await load(client);

    // Assess
    expect(keys.keys).toEqual(['key-two']);
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it('treats a stage that vanished between DescribeSecret and GetSecretValue as absent', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v1', 'key-one', HOUR_MS, ['AWSCURRENT'])]);
    mock.on(DescribeSecretCommand).resolves({
      VersionIdsToStages: { v1: ['AWSCURRENT'], v9: ['AWSPENDING'] },
    });

    // Act
    const keys = await load(client);

    // Assess
    expect(keys.keys).toEqual(['key-one']);
  });

  it('throws a KeyLoadError naming the call when DescribeSecret is denied', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    const denied = new SecretsManagerServiceException({
      name: 'AccessDeniedException',
      $fault: 'client',
      $metadata: {},
      message: 'not authorized to perform secretsmanager:DescribeSecret',
    });
    mock.on(DescribeSecretCommand).rejects(denied);

    // Act
    const loading = load(client);

    // Assess
    await expect(loading).rejects.toThrow(KeyLoadError);
    await expect(loading).rejects.toMatchObject({
      message: 'DescribeSecret of webhook/key failed',
      cause: denied,
    });
  });

  it('throws a KeyLoadError when AWSCURRENT cannot be read', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v1', 'key-one', HOUR_MS, ['AWSCURRENT'])]);
    mock.on(GetSecretValueCommand).rejects(new Error('KMS decrypt failed'));

    // Act
    const loading = load(client);

    // Assess
    await expect(loading).rejects.toThrow('GetSecretValue of webhook/key (AWSCURRENT) failed');
  });

  it('throws a KeyLoadError when the key was stored as binary', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v1', 'unused', HOUR_MS, ['AWSCURRENT'])]);
    mock.on(GetSecretValueCommand).resolves({ SecretBinary: Uint8Array.from([1, 2]) });

    // Act
    const loading = load(client);

    // Assess
    await expect(loading).rejects.toThrow(
      'Secret webhook/key: AWSCURRENT holds only SecretBinary: store the key as text (SecretString)',
    );
  });

  it('throws a KeyLoadError when the AWSCURRENT value is empty', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    fakeSecretVersions(mock, [version('v1', ' \n', HOUR_MS, ['AWSCURRENT'])]);

    // Act
    const loading = load(client);

    // Assess
    await expect(loading).rejects.toThrow(
      'Secret webhook/key: AWSCURRENT holds no usable key: the key is empty',
    );
  });

  it('throws a KeyLoadError when the secret has no AWSCURRENT version', async () => {
    // Prepare
    const { client, mock } = secretsManager();
    mock.on(DescribeSecretCommand).resolves({ VersionIdsToStages: {} });

    // Act
    const loading = load(client);

    // Assess
    await expect(loading).rejects.toThrow('has no AWSCURRENT version');
  });
});

/** A loader that returns scripted results and counts its calls, with a settable clock. */
function scriptedRing(cacheSeconds = 300) {
  const clock = { now: NOW_MS };
  const results: Array<AcceptedKeys | Error> = [];
  const failures: Array<[KeyLoadError, boolean]> = [];
  const successes = { count: 0 };
  let loads = 0;
  let last: AcceptedKeys = { keys: ['key-one'], labels: ['AWSCURRENT'] };
  const ring = new CachedKeyRing(
    async () => {
      loads += 1;
      const next = results.shift() ?? last;
      if (next instanceof Error) throw next;
      last = next;
      return next;
    },
    {
      cacheSeconds,
      now: () => clock.now,
      onLoadFailure: (error, stale) => failures.push([error, stale]),
      onLoaded: () => {
        successes.count += 1;
      },
    },
  );
  return {
    ring,
    clock,
    failures,
    /** How many loads succeeded (told through `onLoaded`). */
    loaded: () => successes.count,
    /** Results of the next loads, in order; after them the last keys are returned again. */
    script: (...next: Array<AcceptedKeys | Error>) => results.push(...next),
    loads: () => loads,
  };
}

const ROTATED: AcceptedKeys = {
  keys: ['key-two', 'key-one'],
  labels: ['AWSCURRENT', 'AWSPREVIOUS'],
};

describe('Class: CachedKeyRing', () => {
  describe('Method: current', () => {
    it('loads once and serves the cache until SECRET_CACHE_SECONDS have passed', async () => {
      // Prepare
      const { ring, clock, loads } = scriptedRing(300);

      // Act
      await ring.current();
      clock.now += 299_999;
      await ring.current();
      const loadsWithinTtl = loads();
      clock.now += 1;
      await ring.current();

      // Assess
      expect(loadsWithinTtl).toBe(1);
      expect(loads()).toBe(2);
    });

    it('tells onLoaded about each successful load, never about a failed one', async () => {
      // Prepare
      const { ring, clock, script, loaded } = scriptedRing(300);
      script(ROTATED, new KeyLoadError('denied'));

      // Act
      await ring.current();
      clock.now += 300_000;
      await ring.current();

      // Assess
      expect(loaded()).toBe(1);
    });

    it('shares one load between concurrent callers', async () => {
      // Prepare
      const { ring, loads } = scriptedRing();

      // Act
      await Promise.all([ring.current(), ring.current(), ring.current()]);

      // Assess
      expect(loads()).toBe(1);
    });

    it('keeps serving the loaded keys when a reload fails (stale-while-error) and reports it', async () => {
      // Prepare
      const { ring, clock, failures, script } = scriptedRing(300);
      await ring.current();
      script(new KeyLoadError('throttled'));
      clock.now += 300_000;

      // Act
      const keys = await ring.current();

      // Assess
      expect(keys.keys).toEqual(['key-one']);
      expect(failures).toEqual([[new KeyLoadError('throttled'), true]]);
    });

    it('retries a failed reload only after 30 s, then uses the new keys', async () => {
      // Prepare
      const { ring, clock, loads, script } = scriptedRing(300);
      await ring.current();
      script(new KeyLoadError('throttled'), ROTATED);
      clock.now += 300_000;
      await ring.current();

      // Act
      clock.now += 29_999;
      const during = await ring.current();
      const loadsDuring = loads();
      clock.now += 1;
      const after = await ring.current();

      // Assess
      expect(during.keys).toEqual(['key-one']);
      expect(loadsDuring).toBe(2);
      expect(after).toEqual(ROTATED);
    });

    it('throws KeyLoadError when nothing was ever loaded, and waits 30 s before the next attempt', async () => {
      // Prepare
      const { ring, clock, loads, failures, script } = scriptedRing();
      script(new KeyLoadError('AccessDenied'));

      // Act
      const first = ring.current();
      await expect(first).rejects.toThrow(KeyLoadError);
      clock.now += 10_000;
      const second = ring.current();
      await expect(second).rejects.toThrow('AccessDenied');
      const loadsBeforeRetry = loads();
      clock.now += 20_000;
      const third = await ring.current();

      // Assess
      expect(loadsBeforeRetry).toBe(1);
      expect(third.keys).toEqual(['key-one']);
      expect(failures).toEqual([[new KeyLoadError('AccessDenied'), false]]);
    });

    it('wraps an unexpected loader error in a KeyLoadError', async () => {
      // Prepare
      const { ring, script } = scriptedRing();
      const cause = new TypeError('socket hang up');
      script(cause);

      // Act
      const loading = ring.current();

      // Assess
      await expect(loading).rejects.toMatchObject({ name: 'KeyLoadError', cause });
    });
  });

  describe('Method: refreshAfterMismatch', () => {
    it('returns the new keys when a reload finds a rotation', async () => {
      // Prepare
      const { ring, clock, script } = scriptedRing();
      await ring.current();
      script(ROTATED);
      clock.now += 30_000;

      // Act
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(refreshed).toEqual({ kind: 'refreshed', keys: ROTATED });
      expect(await ring.current()).toEqual(ROTATED);
    });

    it('reports unchanged when the reload finds the same keys', async () => {
      // Prepare
      const { ring, clock, loads } = scriptedRing();
      await ring.current();
      clock.now += 30_000;

      // Act
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(refreshed).toEqual({ kind: 'unchanged' });
      expect(loads()).toBe(2);
    });

    it('reloads at most once per 30 s however many forged calls arrive', async () => {
      // Prepare
      const { ring, clock, loads } = scriptedRing();
      await ring.current();
      clock.now += 30_000;

      // Act
      for (let call = 0; call < 100; call += 1) {
        await ring.refreshAfterMismatch();
        clock.now += 100;
      }

      // Assess: 100 calls over 10 s: one reload at the start, none after
      expect(loads()).toBe(2);
    });

    it('does not reload within 30 s of the cold-start load', async () => {
      // Prepare
      const { ring, clock, loads } = scriptedRing();
      await ring.current();
      clock.now += 29_999;

      // Act
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(refreshed).toEqual({ kind: 'unchanged' });
      expect(loads()).toBe(1);
    });

    it('reports unavailable and keeps the old keys when the reload fails', async () => {
      // Prepare
      const { ring, clock, failures, script } = scriptedRing();
      await ring.current();
      const throttled = new KeyLoadError('throttled');
      script(throttled);
      clock.now += 30_000;

      // Act
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(refreshed).toEqual({ kind: 'unavailable', error: throttled });
      expect((await ring.current()).keys).toEqual(['key-one']);
      expect(failures).toHaveLength(1);
    });

    it('reports unavailable without another load when expired keys failed to reload within 30 s', async () => {
      // Prepare: the cache expires and the reload in current() fails, so stale keys are served
      const { ring, clock, loads, script } = scriptedRing(300);
      await ring.current();
      const outage = new KeyLoadError('InternalServiceError');
      script(outage);
      clock.now += 300_000;
      const stale = await ring.current();

      // Act
      clock.now += 29_999;
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(stale.keys).toEqual(['key-one']);
      expect(refreshed).toEqual({ kind: 'unavailable', error: outage });
      expect(loads()).toBe(2);
    });

    it('reports unchanged again once a load succeeds after an outage', async () => {
      // Prepare
      const { ring, clock, script } = scriptedRing(300);
      await ring.current();
      script(new KeyLoadError('InternalServiceError'));
      clock.now += 300_000;
      await ring.current();
      clock.now += 30_000;

      // Act
      const refreshed = await ring.refreshAfterMismatch();

      // Assess
      expect(refreshed).toEqual({ kind: 'unchanged' });
    });

    it('waits for a load in flight and reports its failure', async () => {
      // Prepare: the cache expired; a reload is under way when a mismatch asks for one
      const { ring, clock, loads, script } = scriptedRing(300);
      await ring.current();
      const outage = new KeyLoadError('InternalServiceError');
      script(outage);
      clock.now += 300_000;

      // Act
      const [, refreshed] = await Promise.all([ring.current(), ring.refreshAfterMismatch()]);

      // Assess
      expect(refreshed).toEqual({ kind: 'unavailable', error: outage });
      expect(loads()).toBe(2);
    });
  });
});

describe('Function: staticKeySource', () => {
  it('serves the trimmed WEBHOOK_SECRET and never reloads', async () => {
    // Prepare
    const source = staticKeySource('local-key\n');

    // Act
    const keys = await source.current();
    const refreshed = await source.refreshAfterMismatch();

    // Assess
    expect(keys).toEqual({ keys: ['local-key'], labels: ['WEBHOOK_SECRET'] });
    expect(refreshed).toEqual({ kind: 'unchanged' });
  });
});
