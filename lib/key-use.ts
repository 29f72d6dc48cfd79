import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * Lets a principal use customer managed KMS keys only in calls `service` makes for it in the
 * stack's region (`kms:ViaService`), not in calls to KMS itself: the principal reads a secret or
 * puts a message, and that service encrypts or decrypts for it. The statement goes in the
 * principal's own policy, which works for a key the stack imports (whose key policy it cannot
 * change) as for one it creates, as long as the key's policy lets the account's identities use it
 * (KMS's default key policy does); a grant on the key would name no service.
 *
 * @param scope - a construct of the stack, for its region
 * @param service - the service that uses the keys: `secretsmanager` or `sqs`
 * @param actions - the KMS actions that service needs
 * @param keyArns - the keys
 */
export function keyUseThroughService(
  scope: IConstruct,
  service: 'secretsmanager' | 'sqs',
  actions: readonly string[],
  keyArns: readonly string[],
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    actions: [...actions],
    resources: [...keyArns],
    conditions: { StringEquals: viaService(scope, service) },
  });
}

/**
 * Refuses a principal `actions` on KMS keys except in calls `service` makes for it in the
 * stack's region: the same limit as {@link keyUseThroughService}, for a grant the stack does not
 * write itself (CDK's `SqsEventSource` grants the consumer `kms:Decrypt` on its queue's key, with
 * no condition). An explicit deny, so it holds whatever else allows.
 *
 * @param scope - a construct of the stack, for its region
 * @param service - the only service that may use the keys
 * @param actions - the KMS actions to limit
 * @param keyArns - the keys
 */
export function keyUseOnlyThroughService(
  scope: IConstruct,
  service: 'secretsmanager' | 'sqs',
  actions: readonly string[],
  keyArns: readonly string[],
): iam.PolicyStatement {
  return new iam.PolicyStatement({
    effect: iam.Effect.DENY,
    actions: [...actions],
    resources: [...keyArns],
    conditions: { StringNotEquals: viaService(scope, service) },
  });
}

function viaService(scope: IConstruct, service: string): Record<string, string> {
  return { 'kms:ViaService': `${service}.${Stack.of(scope).region}.amazonaws.com` };
}
