import { type CfnElement, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { keyUseThroughService } from './key-use.js';
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
  const decrypt = decryptThroughSecretsManager([secret]);
  if (decrypt !== undefined) grantee.grantPrincipal.addToPrincipalPolicy(decrypt);
}

/**
 * `kms:Decrypt` on the customer managed keys of `secrets`, through Secrets Manager in the stack's
 * region only; `undefined` when none has such a key.
 */
function decryptThroughSecretsManager(
  secrets: readonly secretsmanager.ISecret[],
): iam.PolicyStatement | undefined {
  const keyArns = [
    ...new Set(
      secrets.flatMap(({ encryptionKey }) => (encryptionKey ? [encryptionKey.keyArn] : [])),
    ),
  ];
  const [first] = secrets;
  if (keyArns.length === 0 || first === undefined) return undefined;
  return keyUseThroughService(first, {
    service: 'secretsmanager',
    actions: ['kms:Decrypt'],
    keyArns,
  });
}

/**
 * Characters of one customer managed policy IAM accepts, whitespace not counted (a role's inline
 * policies share 10,240 in all, which a hundred endpoints' secret ARNs pass).
 */
export const MANAGED_POLICY_CHARACTERS = 6_144;

/**
 * Lets `role` read the signing keys of many endpoints, as {@link grantReadSigningKey} does for one
 * (`DescribeSecret` and `GetSecretValue` on each exact secret ARN, `kms:Decrypt` through Secrets
 * Manager on their customer managed keys), in customer managed policies of their own rather than
 * the role's inline policy: the inline policies of a role are limited to 10,240 characters, which
 * 100 endpoints' ARNs pass; a managed policy takes 6,144, and a role 10 of them (IAM's default
 * quota). The endpoints are packed in order, by the length their ARNs can have once deployed.
 * @param scope - the receiver
 * @param role - the receiver's role
 * @param secrets - every endpoint's secret, in the endpoints' order
 * @returns the policies, for the function to depend on
 */
export function grantReadEndpointSigningKeys(
  scope: Construct,
  role: iam.IRole,
  secrets: readonly secretsmanager.ISecret[],
): iam.ManagedPolicy[] {
  const groups: secretsmanager.ISecret[][] = [];
  let used = Number.POSITIVE_INFINITY;
  for (const secret of secrets) {
    const size = deployedArnCharacters(secret) + (secret.encryptionKey ? KEY_ARN_CHARACTERS : 0);
    if (used + size > MANAGED_POLICY_CHARACTERS - POLICY_OVERHEAD_CHARACTERS) {
      groups.push([]);
      used = 0;
    }
    groups.at(-1)?.push(secret);
    used += size;
  }
  return groups.map((group, index) => {
    const decrypt = decryptThroughSecretsManager(group);
    return new iam.ManagedPolicy(scope, `EndpointSigningKeysRead${index + 1}`, {
      description: `Read the signing keys of the webhook receiver's endpoints (part ${index + 1} of ${groups.length})`,
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          // What secret.grantRead grants.
          actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          resources: group.map(({ secretArn }) => secretArn),
        }),
        ...(decrypt === undefined ? [] : [decrypt]),
      ],
    });
  });
}

/**
 * The statements' fixed text (effect, actions, the `kms:ViaService` condition with a region),
 * generously counted.
 */
const POLICY_OVERHEAD_CHARACTERS = 400;

/** A KMS key ARN's length and its separators: `arn:aws-us-gov:kms:<region>:<account>:key/<uuid>`. */
const KEY_ARN_CHARACTERS = 90;

/**
 * The most characters a secret's ARN can take in a policy once deployed, with its separators: its
 * length when given, else `arn:<partition>:secretsmanager:<region>:<account>:secret:` and the name
 * CloudFormation generates (stack name, logical id, two random suffixes).
 */
function deployedArnCharacters(secret: secretsmanager.ISecret): number {
  const stack = Stack.of(secret);
  if (!Token.isUnresolved(secret.secretArn)) return secret.secretArn.length + 3;
  const logicalId = secret.node.defaultChild
    ? stack.getLogicalId(secret.node.defaultChild as CfnElement)
    : secret.node.id;
  const stackName = Token.isUnresolved(stack.stackName) ? 128 : stack.stackName.length;
  return 70 + stackName + logicalId.length + 24;
}
