import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  paginateListSecretVersionIds,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { EXIT_STATUS, ToolError } from '../../devkit/exit-status.js';
import { NETWORK_TIMEOUT_MS } from '../../devkit/network.js';
import {
  describeSecretKeyFailure,
  replaceKeyInSecretValue,
} from '../../lambda/receiver/decision/secret-value.js';

/**
 * The rotation steps of `npm run rotate-secret`: each changes the secret's versions through
 * Secrets Manager's staging labels so that the receiver accepts the right keys at every moment.
 * @module
 */

/** Staging label of the key the sender signs with now. */
export const AWSCURRENT = 'AWSCURRENT';
/** Staging label of a key staged ahead of the sender's switch; the receiver accepts it too. */
export const AWSPENDING = 'AWSPENDING';
/** Staging label Secrets Manager moves to the replaced key; accepted during the grace period. */
export const AWSPREVIOUS = 'AWSPREVIOUS';

/** One change to the secret's versions. */
export type RotateAction =
  | { readonly kind: 'put'; readonly key: string }
  | { readonly kind: 'stage'; readonly key: string }
  | { readonly kind: 'promote' }
  | { readonly kind: 'revoke-previous' };

/** A version of the secret and its staging labels. */
export interface SecretVersion {
  readonly versionId: string;
  readonly stages: readonly string[];
  readonly createdDate: Date | undefined;
}

/**
 * A rotation step that cannot be done in the secret's current state (e.g. nothing staged to
 * promote): exit 1.
 */
export class RotationError extends ToolError {
  /** @param message - what cannot be done and what to do first */
  constructor(message: string) {
    super(message, EXIT_STATUS.refused);
  }
}

/** The secret a step changes, and the signal that ends its calls. */
interface SecretCall {
  readonly client: SecretsManagerClient;
  readonly secretId: string;
  readonly abortSignal: AbortSignal;
}

/**
 * Applies one action and returns a sentence saying what changed:
 * - `put`: a new version becomes AWSCURRENT; Secrets Manager moves AWSPREVIOUS to the old one, which
 *   the receiver keeps accepting for `PREVIOUS_KEY_GRACE_SECONDS`; a key staged before is unstaged
 *   (AWSPENDING removed), as the put replaces the rotation it was for.
 * - `stage`: a new version labelled AWSPENDING only, so the receiver accepts it before the sender
 *   switches, while AWSCURRENT stays as it is.
 * - `promote`: moves AWSCURRENT to the AWSPENDING version (AWSPREVIOUS follows to the old one),
 *   then removes AWSPENDING from it. In that order, so the new key is labelled at every moment.
 * - `revoke-previous`: removes AWSPREVIOUS, and AWSPENDING from a staged key, so only the current
 *   key works from the receiver's next key refresh instead of after the grace period.
 *
 * `put` and `stage` keep the secret's shape: when the AWSCURRENT value is a JSON object, the new
 * version is that object with the key replaced in the field the receiver reads.
 *
 * @param jsonField - `SECRET_JSON_FIELD`, when set
 * @param abortSignal - aborts every call the step makes (default: after `NETWORK_TIMEOUT_MS`)
 * @throws {RotationError} when there is no AWSPENDING version to promote, or the current JSON
 *   value has no field the receiver would read the key from
 */
export async function applyRotation(
  client: SecretsManagerClient,
  secretId: string,
  action: RotateAction,
  jsonField?: string | undefined,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<string> {
  const call = { client, secretId, abortSignal };
  switch (action.kind) {
    case 'put': {
      const secretString = await shapedValue(call, action.key, jsonField);
      const put = await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: secretString }),
        { abortSignal },
      );
      // A key staged before stays accepted as long as it is AWSPENDING: a put replaces the
      // rotation it was for (after a leak, say), so it goes too.
      const unstaged = await removeStage(call, AWSPENDING);
      return `Stored the new key as version ${put.VersionId} (${AWSCURRENT}); the replaced key is ${AWSPREVIOUS} and keeps working for PREVIOUS_KEY_GRACE_SECONDS.${unstaged === undefined ? '' : ` Removed ${AWSPENDING} from version ${unstaged}: the key staged there is no longer accepted.`}`;
    }
    case 'stage': {
      const secretString = await shapedValue(call, action.key, jsonField);
      const put = await client.send(
        new PutSecretValueCommand({
          SecretId: secretId,
          SecretString: secretString,
          VersionStages: [AWSPENDING],
        }),
        { abortSignal },
      );
      return `Staged the new key as version ${put.VersionId} (${AWSPENDING}); the receiver accepts it alongside ${AWSCURRENT}. Run --promote once the sender signs with it.`;
    }
    case 'promote':
      return promote(call);
    case 'revoke-previous':
      return revokePrevious(call);
  }
}

/** The value to store for `key`, shaped like the AWSCURRENT value (see `replaceKeyInSecretValue`). */
async function shapedValue(
  { client, secretId, abortSignal }: SecretCall,
  key: string,
  jsonField: string | undefined,
): Promise<string> {
  let current: string | undefined;
  try {
    const value = await client.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionStage: AWSCURRENT }),
      { abortSignal },
    );
    current = value.SecretString;
  } catch (error) {
    // A secret created without a value: the first version is the key itself.
    if (error instanceof ResourceNotFoundException) return key;
    throw error;
  }
  if (current === undefined) return key;
  const replaced = replaceKeyInSecretValue(current, key, jsonField);
  if (!replaced.ok) {
    throw new RotationError(
      `${secretId} (${AWSCURRENT}): ${describeSecretKeyFailure(replaced)}; nothing was changed`,
    );
  }
  return replaced.secretString;
}

async function promote({ client, secretId, abortSignal }: SecretCall): Promise<string> {
  const versions = await listSecretVersions(client, secretId, abortSignal);
  const pending = versions.find((version) => version.stages.includes(AWSPENDING));
  if (!pending) {
    throw new RotationError(
      `${secretId} has no ${AWSPENDING} version to promote: stage one first with --stage KEYFILE`,
    );
  }
  const current = versions.find((version) => version.stages.includes(AWSCURRENT));
  if (current?.versionId !== pending.versionId) {
    await client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: AWSCURRENT,
        MoveToVersionId: pending.versionId,
        ...(current ? { RemoveFromVersionId: current.versionId } : {}),
      }),
      { abortSignal },
    );
  }
  await client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: AWSPENDING,
      RemoveFromVersionId: pending.versionId,
    }),
    { abortSignal },
  );
  return `Promoted version ${pending.versionId} to ${AWSCURRENT}; the replaced key is ${AWSPREVIOUS} and keeps working for PREVIOUS_KEY_GRACE_SECONDS.`;
}

async function revokePrevious(call: SecretCall): Promise<string> {
  const previous = await removeStage(call, AWSPREVIOUS);
  // A staged key is accepted too: revoking leaves only the current key working.
  const pending = await removeStage(call, AWSPENDING);
  const removed = [
    ...(previous === undefined ? [] : [`${AWSPREVIOUS} from version ${previous}`]),
    ...(pending === undefined ? [] : [`${AWSPENDING} from version ${pending}`]),
  ];
  if (removed.length === 0) {
    return `${call.secretId} has no ${AWSPREVIOUS} or ${AWSPENDING} version: nothing to revoke.`;
  }
  return `Removed ${removed.join(' and ')}: the receiver stops accepting ${removed.length === 1 ? 'that key' : 'those keys'} at its next key refresh (SECRET_CACHE_SECONDS, sooner after a mismatch).`;
}

/**
 * Removes `stage` from the version holding it, unless that version is also AWSCURRENT (whose key
 * stays accepted anyway); the version's id, or `undefined` when there was nothing to remove.
 */
async function removeStage(
  { client, secretId, abortSignal }: SecretCall,
  stage: typeof AWSPREVIOUS | typeof AWSPENDING,
): Promise<string | undefined> {
  const versions = await listSecretVersions(client, secretId, abortSignal);
  const holder = versions.find(
    (version) => version.stages.includes(stage) && !version.stages.includes(AWSCURRENT),
  );
  if (holder === undefined) return undefined;
  await client.send(
    new UpdateSecretVersionStageCommand({
      SecretId: secretId,
      VersionStage: stage,
      RemoveFromVersionId: holder.versionId,
    }),
    { abortSignal },
  );
  return holder.versionId;
}

/**
 * Every version that still has a staging label, newest first.
 *
 * @param abortSignal - aborts the listing, every page included (default: after `NETWORK_TIMEOUT_MS`)
 */
export async function listSecretVersions(
  client: SecretsManagerClient,
  secretId: string,
  abortSignal: AbortSignal = AbortSignal.timeout(NETWORK_TIMEOUT_MS),
): Promise<SecretVersion[]> {
  const versions: SecretVersion[] = [];
  const pages = paginateListSecretVersionIds({ client }, { SecretId: secretId }, { abortSignal });
  for await (const page of pages) {
    for (const entry of page.Versions ?? []) {
      if (entry.VersionId === undefined) continue;
      versions.push({
        versionId: entry.VersionId,
        stages: entry.VersionStages ?? [],
        createdDate: entry.CreatedDate,
      });
    }
  }
  return versions.sort((a, b) => (b.createdDate?.getTime() ?? 0) - (a.createdDate?.getTime() ?? 0));
}

/** One line per version: id, labels, creation time. */
export function formatVersions(secretId: string, versions: readonly SecretVersion[]): string {
  const lines = versions.map(
    (version) =>
      `  ${version.versionId}  ${version.stages.join(',') || '(no stage)'}  created ${version.createdDate?.toISOString() ?? 'unknown'}`,
  );
  return [`Versions of ${secretId}:`, ...lines].join('\n');
}
