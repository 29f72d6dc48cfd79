import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/** KMS keys, the actions on them, and the one service that may use them for a principal. */
export interface KeyUse {
  /** The service that uses the keys for the principal: `secretsmanager`, `sqs` or `s3`. */
  readonly service: 'secretsmanager' | 'sqs' | 's3';
  readonly actions: readonly string[];
  readonly keyArns: readonly string[];
}

/**
 * Lets a principal use customer managed KMS keys only in calls `use.service` makes for it in the
 * stack's region (`kms:ViaService`), not in calls to KMS itself: the principal reads a secret or
 * puts a message, and that service encrypts or decrypts for it. The statement goes in the
 * principal's own policy, which works for a key the stack imports (whose key policy it cannot
 * change) as for one it creates, as long as the key's policy lets the account's identities use it
 * (KMS's default key policy does); a grant on the key would name no service.
 *
 * @param scope - a construct of the stack, for its region
 * @param use - the keys, the actions and the service
 */
export function keyUseThroughService(scope: IConstruct, use: KeyUse): iam.PolicyStatement {
  return viaServiceStatement(scope, use, iam.Effect.ALLOW, 'StringEquals');
}

/**
 * Refuses a principal `use.actions` on KMS keys except in calls `use.service` makes for it in the
 * stack's region: the same limit as {@link keyUseThroughService}, for a grant the stack does not
 * write itself (CDK's `SqsEventSource` grants the consumer `kms:Decrypt` on its queue's key, with
 * no condition). An explicit deny, so it holds whatever else allows.
 *
 * @param scope - a construct of the stack, for its region
 * @param use - the keys, the actions and the only service that may use them
 */
export function keyUseOnlyThroughService(scope: IConstruct, use: KeyUse): iam.PolicyStatement {
  return viaServiceStatement(scope, use, iam.Effect.DENY, 'StringNotEquals');
}

function viaServiceStatement(
  scope: IConstruct,
  { service, actions, keyArns }: KeyUse,
  effect: iam.Effect,
  operator: 'StringEquals' | 'StringNotEquals',
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    effect,
    actions: [...actions],
    resources: [...keyArns],
    conditions: {
      [operator]: { 'kms:ViaService': `${service}.${Stack.of(scope).region}.amazonaws.com` },
    },
  });
}
