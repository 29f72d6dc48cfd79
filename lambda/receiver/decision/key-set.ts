/**
 * Which signing keys the receiver accepts, decided from Secrets Manager version metadata.
 *
 * Pure: the Secrets Manager adapter (`lambda/receiver/key-ring.ts`) fetches versions and asks
 * these functions what to fetch next and what to accept, so the rotation rules are testable
 * without any AWS client.
 */

import { describeSecretKeyFailure, keyFromSecretValue } from './secret-value.js';

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
  /** The `SecretString` exactly as stored; `undefined` when the version holds only `SecretBinary`. */
  readonly secretString: string | undefined;
  /** When this version was created; Secrets Manager always returns it, absent only in odd mocks. */
  readonly createdAt: Date | undefined;
}

/** The keys to try, in priority order, with a label per key saying where it came from (for logs). */
export interface AcceptedKeys {
  readonly keys: readonly string[];
  readonly labels: readonly string[];
}

/** A pending or previous version left out of the key set, and why (for a warning). */
export interface SkippedVersion {
  readonly stage: KeyStage;
  /** What is wrong with it, naming fields but never a value. */
  readonly problem: string;
}

/** Result of {@link acceptedKeysFrom}: the current version must hold a usable key. */
export type AcceptedKeysResult =
  | {
      readonly ok: true;
      readonly accepted: AcceptedKeys;
      readonly skipped: readonly SkippedVersion[];
    }
  | { readonly ok: false; readonly problem: string };

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
 * (staged ahead of the sender's switch), then previous (only pass it when in grace). Each value is
 * read with {@link keyFromSecretValue}. A pending or previous version that holds no usable key
 * (binary only, or a JSON object the rule cannot read) is skipped and reported, so the other
 * versions keep serving; the current version must hold one. Keys equal to one already listed are
 * skipped so no HMAC is computed twice.
 *
 * @param versions - the loaded versions; leave out stages that are absent or not accepted
 * @param jsonField - `SECRET_JSON_FIELD`, when set
 */
export function acceptedKeysFrom(
  versions: {
    readonly current: SecretVersion;
    readonly pending?: SecretVersion | undefined;
    readonly previous?: SecretVersion | undefined;
  },
  jsonField?: string | undefined,
): AcceptedKeysResult {
  const keys: string[] = [];
  const labels: string[] = [];
  const skipped: SkippedVersion[] = [];
  const candidates: ReadonlyArray<readonly [KeyStage, SecretVersion | undefined]> = [
    ['AWSCURRENT', versions.current],
    ['AWSPENDING', versions.pending],
    ['AWSPREVIOUS', versions.previous],
  ];
  for (const [stage, version] of candidates) {
    if (version === undefined) continue;
    const read = readVersion(version, jsonField);
    if (!read.ok) {
      if (stage === 'AWSCURRENT') return { ok: false, problem: `AWSCURRENT ${read.problem}` };
      skipped.push({ stage, problem: read.problem });
    } else if (!keys.includes(read.key)) {
      keys.push(read.key);
      labels.push(stage);
    }
  }
  return { ok: true, accepted: { keys, labels }, skipped };
}

function readVersion(
  version: SecretVersion,
  jsonField: string | undefined,
): { readonly ok: true; readonly key: string } | { readonly ok: false; readonly problem: string } {
  if (version.secretString === undefined) {
    return { ok: false, problem: 'holds only SecretBinary: store the key as text (SecretString)' };
  }
  const read = keyFromSecretValue(version.secretString, jsonField);
  return read.ok
    ? read
    : { ok: false, problem: `holds no usable key: ${describeSecretKeyFailure(read)}` };
}
