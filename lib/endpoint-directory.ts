import { createHash } from 'node:crypto';
import { SecretValue, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { EndpointDirectory } from '../lambda/contract/endpoint-directory.js';
import {
  ENDPOINT_DIRECTORY_SECRET_ID,
  ENDPOINT_DIRECTORY_VERSION,
} from '../lambda/contract/environment.js';
import type { ServedWebhookEndpoint } from './endpoints.js';
import { acknowledgeNagFindings } from './nag.js';

/** The endpoint directory of a receiver serving named endpoints, and the variables naming it. */
export interface EndpointDirectorySecret {
  /** The secret whose `SecretString` lists every endpoint's secret ARN (and JSON field). */
  readonly secret: secretsmanager.ISecret;
  /** `ENDPOINT_DIRECTORY_SECRET_ID` and `ENDPOINT_DIRECTORY_VERSION`. */
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * The endpoint directory: a secret holding the map from endpoint name to secret ARN that the
 * receiver reads on its first call. Kept outside the function's environment, which Lambda caps at
 * 4 KB (about 19 endpoints of 32-character names with the secrets' full ARNs); a secret value
 * takes 64 KB, and the receiver already calls Secrets Manager, so it needs no other client. The
 * receiver's role still names each endpoint's secret ARN, and a rotation changes an endpoint's
 * secret, never the directory. Not a secret in itself (ARNs and field names), but an SSM
 * parameter holds 4 KB (8 KB advanced), less than a hundred endpoints' ARNs.
 * @param scope - the receiver
 * @param endpoints - the named endpoints, with their secrets
 */
export function createEndpointDirectory(
  scope: Construct,
  endpoints: ReadonlyArray<Omit<ServedWebhookEndpoint, 'url'>>,
): EndpointDirectorySecret {
  const stack = Stack.of(scope);
  const jsonFields = endpoints.flatMap(({ name, secretJsonField }) =>
    secretJsonField === undefined ? [] : [[name, secretJsonField] as const],
  );
  const directory: EndpointDirectory = {
    secretIds: Object.fromEntries(endpoints.map(({ name, secret }) => [name, secret.secretArn])),
    ...(jsonFields.length === 0 ? {} : { jsonFields: Object.fromEntries(jsonFields) }),
  };
  const secret = new secretsmanager.Secret(scope, 'EndpointDirectory', {
    description:
      'Endpoint directory of the webhook receiver: the secret ARN of each named endpoint (no key; written by the stack, do not edit)',
    // ARNs, not secret; written from the template on every deploy that changes them.
    secretStringValue: SecretValue.unsafePlainText(stack.toJsonString(directory)),
  });
  acknowledgeNagFindings(secret, {
    pack: 'AwsSolutions',
    rule: 'AwsSolutions-SMG4',
    reason:
      "AwsSolutions-SMG4 (rotation): the endpoint directory holds no key, only the ARNs of the endpoints' secrets, which the stack writes on each deploy.",
  });
  // The template's form of the directory (references, not their values) changes with every
  // change of endpoints, names, fields or imported ARNs: a digest of it restarts the function.
  const version = createHash('sha256')
    .update(JSON.stringify(stack.resolve(directory)))
    .digest('hex')
    .slice(0, 16);
  return {
    secret: secret as secretsmanager.ISecret,
    environment: {
      [ENDPOINT_DIRECTORY_SECRET_ID]: secret.secretArn,
      [ENDPOINT_DIRECTORY_VERSION]: version,
    },
  };
}
