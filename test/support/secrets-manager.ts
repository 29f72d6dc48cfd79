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
  readonly value: string;
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
 * @param versions - the secret's versions
 */
export function fakeSecretVersions(
  mock: SecretsManagerMock,
  versions: readonly FakeSecretVersion[],
): void {
  mock.on(DescribeSecretCommand).callsFake(async () => ({
    VersionIdsToStages: Object.fromEntries(
      versions.filter((v) => v.stages.length > 0).map((v) => [v.versionId, [...v.stages]]),
    ),
  }));
  mock
    .on(GetSecretValueCommand)
    .callsFake(async (input: { VersionId?: string; VersionStage?: string }) => {
      const stage =
        input.VersionStage ?? (input.VersionId === undefined ? 'AWSCURRENT' : undefined);
      const version = versions.find(
        (v) =>
          (input.VersionId === undefined || v.versionId === input.VersionId) &&
          (stage === undefined || v.stages.includes(stage)),
      );
      if (version === undefined) {
        throw new ResourceNotFoundException({
          message: "Secrets Manager can't find the specified secret value",
          $metadata: {},
        });
      }
      return {
        VersionId: version.versionId,
        SecretString: version.value,
        CreatedDate: version.createdAt,
        VersionStages: [...version.stages],
      };
    });
}
