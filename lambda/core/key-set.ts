/**
 * Which signing keys the receiver accepts, decided from Secrets Manager version metadata.
 *
 * Pure: the Secrets Manager adapter (`lambda/receiver/key-ring.ts`) fetches versions and asks
 * these functions what to fetch next and what to accept, so the rotation rules are testable
 * without any AWS client.
 */

/** The Secrets Manager staging labels that carry signing keys. */
export type KeyStage = 'AWSCURRENT' | 'AWSPENDING' | 'AWSPREVIOUS';

/** Version id of each staging label that is present on the secret (a missing stage is normal). */
export interface StageVersionIds {
  readonly current?: string;
  readonly pending?: string;
  readonly previous?: string;
}

/** One loaded version of the secret. */
export interface SecretVersion {
  /** The `SecretString` exactly as stored. */
  readonly secretString: string;
  /** When this version was created; Secrets Manager always returns it, absent only in odd mocks. */
  readonly createdAt: Date | undefined;
}

/** The keys to try, in priority order, with a label per key saying where it came from (for logs). */
export interface AcceptedKeys {
  readonly keys: readonly string[];
  readonly labels: readonly string[];
}

/** Result of {@link acceptedKeysFrom}: the current version must hold a usable key. */
export type AcceptedKeysResult =
  | { readonly ok: true; readonly accepted: AcceptedKeys }
  | { readonly ok: false; readonly reason: 'current_key_empty' };

/**
 * Picks the version id of each stage out of DescribeSecret's `VersionIdsToStages`.
 *
 * @param versionIdsToStages - map of version id to the staging labels attached to it
 */
export function stageVersionIds(
  versionIdsToStages: Readonly<Record<string, readonly string[]>> | undefined,
): StageVersionIds {
  const ids: { current?: string; pending?: string; previous?: string } = {};
  for (const [versionId, stages] of Object.entries(versionIdsToStages ?? {})) {
    if (stages.includes('AWSCURRENT')) ids.current = versionId;
    if (stages.includes('AWSPENDING')) ids.pending = versionId;
    if (stages.includes('AWSPREVIOUS')) ids.previous = versionId;
  }
  return ids;
}

/**
 * Whether the `AWSPREVIOUS` key is still accepted: only while the `AWSCURRENT` version is younger
 * than the grace period, so the sender has time to switch to the new key. A grace of 0 turns the
 * previous key off; an unknown creation date fails closed.
 *
 * @param currentCreatedAt - `CreatedDate` of the `AWSCURRENT` version
 * @param nowSeconds - current time, Unix seconds
 * @param graceSeconds - `PREVIOUS_KEY_GRACE_SECONDS`
 */
export function isPreviousKeyInGrace(
  currentCreatedAt: Date | undefined,
  nowSeconds: number,
  graceSeconds: number,
): boolean {
  if (graceSeconds <= 0 || currentCreatedAt === undefined) return false;
  return nowSeconds - currentCreatedAt.getTime() / 1000 < graceSeconds;
}

/**
 * Builds the accepted key list: current first (the key the sender most likely uses), then pending
 * (staged ahead of the sender's switch), then previous (only pass it when in grace). Keys are
 * trimmed because keys pasted from a file often end in a newline; empty pending/previous values
 * and keys equal to one already listed are skipped so no HMAC is computed twice.
 *
 * @param versions - the loaded versions; leave out stages that are absent or not accepted
 */
export function acceptedKeysFrom(versions: {
  readonly current: SecretVersion;
  readonly pending?: SecretVersion | undefined;
  readonly previous?: SecretVersion | undefined;
}): AcceptedKeysResult {
  const keys: string[] = [];
  const labels: string[] = [];
  const candidates: ReadonlyArray<readonly [KeyStage, SecretVersion | undefined]> = [
    ['AWSCURRENT', versions.current],
    ['AWSPENDING', versions.pending],
    ['AWSPREVIOUS', versions.previous],
  ];
  for (const [stage, version] of candidates) {
    const key = version?.secretString.trim();
    if (key && !keys.includes(key)) {
      keys.push(key);
      labels.push(stage);
    }
  }
  if (labels[0] !== 'AWSCURRENT') return { ok: false, reason: 'current_key_empty' };
  return { ok: true, accepted: { keys, labels } };
}
