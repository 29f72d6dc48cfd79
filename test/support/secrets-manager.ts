import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClientResolvedConfig,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-secrets-manager';
import type { AwsStub } from 'aws-sdk-client-mock';

/** One version of a secret in the fake: its value, creation date and staging labels. */
export interface FakeSecretVersion {
  readonly versionId: string;
  /** Text is served as `SecretString`, bytes as `SecretBinary` (a version with only a binary). */
  readonly value: string | Uint8Array;
  readonly createdAt: Date;
  readonly stages: readonly string[];
}

/** A Secrets Manager mock (`mockClient(secretsManagerClient)`). */
export type SecretsManagerMock = AwsStub<
  ServiceInputTypes,
  ServiceOutputTypes,
  SecretsManagerClientResolvedConfig
>;

/**
 * Makes the mock answer `DescribeSecret` and `GetSecretValue` (by version id or stage) like
 * Secrets Manager would for a secret with these versions; an unknown version or stage answers
 * `ResourceNotFoundException`. Call again to change the versions (a rotation).
 *
 * @param mock - the client mock
 * @param versions - the secret's versions, or a function giving them as they are at each call
 */
export function fakeSecretVersions(
  mock: SecretsManagerMock,
  versions: readonly FakeSecretVersion[] | (() => readonly FakeSecretVersion[]),
): void {
  const current = typeof versions === 'function' ? versions : () => versions;
  mock.on(DescribeSecretCommand).callsFake(async () => ({
    VersionIdsToStages: Object.fromEntries(
      current()
        .filter((v) => v.stages.length > 0)
        .map((v) => [v.versionId, [...v.stages]]),
    ),
  }));
  mock
    .on(GetSecretValueCommand)
    .callsFake(async (input: { VersionId?: string; VersionStage?: string }) => {
      const version = findSecretVersion(current(), input);
      if (version === undefined) {
        throw new ResourceNotFoundException({
          message: "Secrets Manager can't find the specified secret value",
          $metadata: {},
        });
      }
      return {
        VersionId: version.versionId,
        ...(typeof version.value === 'string'
          ? { SecretString: version.value }
          : { SecretBinary: version.value }),
        CreatedDate: version.createdAt,
        VersionStages: [...version.stages],
      };
    });
}

/**
 * The version `GetSecretValue` would return for a version id and/or stage (AWSCURRENT when
 * neither is given), or `undefined` when Secrets Manager would answer ResourceNotFoundException.
 *
 * @param versions - the secret's versions
 * @param request - the request's `VersionId` and `VersionStage`
 */
export function findSecretVersion(
  versions: readonly FakeSecretVersion[],
  request: { readonly VersionId?: string | undefined; readonly VersionStage?: string | undefined },
): FakeSecretVersion | undefined {
  const stage =
    request.VersionStage ?? (request.VersionId === undefined ? 'AWSCURRENT' : undefined);
  return versions.find(
    (v) =>
      (request.VersionId === undefined || v.versionId === request.VersionId) &&
      (stage === undefined || v.stages.includes(stage)),
  );
}
