import {
  InvalidParameterException,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import {
  type FakeSecretVersion,
  fakeSecretVersions,
  type SecretsManagerMock,
} from './secrets-manager.js';

/**
 * One secret that changes as Secrets Manager changes it, so a rotation made with
 * `cli/rotate-secret.ts` (PutSecretValue, UpdateSecretVersionStage, ListSecretVersionIds) is
 * what the receiver's key loader (DescribeSecret, GetSecretValue) sees next. Label rules as
 * documented for the service: each label is on one version at most; a put without labels, or the
 * secret's first put, gets AWSCURRENT; moving AWSCURRENT moves AWSPREVIOUS to the version it
 * left; moving or removing a label held by a version not named in RemoveFromVersionId is refused.
 */
export class FakeSecretStore {
  readonly #values = new Map<
    string,
    { readonly value: string | Uint8Array; readonly createdAt: Date }
  >();
  /** Staging label -> version id. */
  readonly #labels = new Map<string, string>();
  readonly #now: () => Date;
  #versionCount = 0;

  /** @param now - creation time of new versions (the test's clock) */
  constructor(now: () => Date) {
    this.#now = now;
  }

  /** Stores a new version (bytes: a version with only `SecretBinary`); returns its id. */
  put(value: string | Uint8Array, stages?: readonly string[]): string {
    this.#versionCount += 1;
    const versionId = `version-${this.#versionCount}`;
    this.#values.set(versionId, { value, createdAt: this.#now() });
    const labels = stages ?? ['AWSCURRENT'];
    if (!this.#labels.has('AWSCURRENT') && !labels.includes('AWSCURRENT')) {
      this.#attach('AWSCURRENT', versionId);
    }
    for (const stage of labels) this.#attach(stage, versionId);
    return versionId;
  }

  /** UpdateSecretVersionStage. */
  updateStage(stage: string, moveTo: string | undefined, removeFrom: string | undefined): void {
    const holder = this.#labels.get(stage);
    if (holder !== undefined && holder !== moveTo && holder !== removeFrom) {
      throw new InvalidParameterException({
        message: `${stage} is attached to ${holder}: name it in RemoveFromVersionId`,
        $metadata: {},
      });
    }
    if (moveTo !== undefined) this.#attach(stage, moveTo);
    else if (holder !== undefined) this.#labels.delete(stage);
  }

  /** Every version with its labels (unlabelled ones included, as the service keeps them). */
  versions(): FakeSecretVersion[] {
    return [...this.#values].map(([versionId, { value, createdAt }]) => ({
      versionId,
      value,
      createdAt,
      stages: [...this.#labels].filter(([, id]) => id === versionId).map(([stage]) => stage),
    }));
  }

  #attach(stage: string, versionId: string): void {
    const from = this.#labels.get(stage);
    this.#labels.set(stage, versionId);
    if (stage === 'AWSCURRENT' && from !== undefined && from !== versionId) {
      this.#labels.set('AWSPREVIOUS', from);
    }
  }
}

/**
 * Makes `mock` serve `store` to both sides: the rotation tool's calls change it, and every
 * change (theirs or a test's `put`) is visible to the next DescribeSecret / GetSecretValue (see
 * {@link fakeSecretVersions}).
 *
 * @param mock - the client mock
 * @param store - the secret
 */
export function serveSecretStore(mock: SecretsManagerMock, store: FakeSecretStore): void {
  fakeSecretVersions(mock, () => store.versions());
  mock
    .on(PutSecretValueCommand)
    .callsFake((input: { SecretString: string; VersionStages?: string[] }) => {
      const versionId = store.put(input.SecretString, input.VersionStages);
      return { VersionId: versionId };
    });
  mock
    .on(UpdateSecretVersionStageCommand)
    .callsFake(
      (input: { VersionStage: string; MoveToVersionId?: string; RemoveFromVersionId?: string }) => {
        store.updateStage(input.VersionStage, input.MoveToVersionId, input.RemoveFromVersionId);
        return {};
      },
    );
  mock.on(ListSecretVersionIdsCommand).callsFake(() => ({
    Versions: store
      .versions()
      .filter((version) => version.stages.length > 0)
      .map((version) => ({
        VersionId: version.versionId,
        VersionStages: [...version.stages],
        CreatedDate: version.createdAt,
      })),
  }));
}
