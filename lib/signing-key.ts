import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { acknowledgeNagFindings } from './nag.js';

/**
 * A secret for a signing key the user has not given: a random 64-character placeholder that
 * matches no sender until the key issued by the booking service is put into it.
 * @param scope - the receiver
 * @param id - `SigningKey`, or `SigningKey<Name>` for a named endpoint's key
 * @param endpoint - the named endpoint whose key it holds, for the description
 */
export function createPlaceholderSecret(
  scope: Construct,
  id: string,
  endpoint?: string,
): secretsmanager.ISecret {
  // Random rather than a fixed text: a placeholder anyone can read in this repository would be a
  // key anyone can sign with. CloudFormation only writes the value on creation (or when these
  // options change), so a key put in later with put-secret-value survives redeploys.
  const secret = new secretsmanager.Secret(scope, id, {
    description: `Webhook signing key${endpoint === undefined ? '' : ` of endpoint ${endpoint}`} issued by the booking service (replace the random placeholder with put-secret-value)`,
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
  acknowledgeNagFindings(secret, {
    pack: 'AwsSolutions',
    rule: 'AwsSolutions-SMG4',
    reason:
      'AwsSolutions-SMG4 (rotation): the signing key is issued by the booking service, so a rotation Lambda could not generate a valid one; rotate by staging the new key (the receiver accepts AWSPENDING, and AWSPREVIOUS during the grace period).',
  });
  // Secret declares secretFullArn as `string | undefined`, which exactOptionalPropertyTypes
  // does not accept for ISecret's optional field; the object is an ISecret all the same.
  return secret as secretsmanager.ISecret;
}

/**
 * Lets `grantee` read `secret`, and decrypt it when it is encrypted with a customer managed KMS
 * key. `grantRead` grants the key only in the key's resource policy, which the stack owns for a key
 * it creates but not for an imported one (`Key.fromKeyArn`): there the grant is silently dropped
 * and every key load fails. So the key is also granted in the grantee's identity policy, as
 * `grantRead` would, limited to calls Secrets Manager makes in the stack's region
 * (`kms:ViaService`). The key's own policy must still let the account's identities use it (a key
 * created by KMS's default policy does).
 * @param secret - a signing-key secret, with its `encryptionKey` when it has one
 * @param grantee - the function reading it
 */
export function grantReadSigningKey(secret: secretsmanager.ISecret, grantee: iam.IGrantable): void {
  secret.grantRead(grantee);
  if (secret.encryptionKey === undefined) return;
  iam.Grant.addToPrincipal({
    grantee,
    actions: ['kms:Decrypt'],
    resourceArns: [secret.encryptionKey.keyArn],
    conditions: {
      StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(secret).region}.amazonaws.com` },
    },
  });
}
