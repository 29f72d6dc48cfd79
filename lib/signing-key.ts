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
