import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ReceiverStack } from '../../lib/receiver-stack.js';
import { appProps, SKIP_BUNDLING } from './cdk-app.js';
import { deployedValue } from './deployed-value.js';

/** Lambda's limit on a function's environment variables, keys and values together. */
const LAMBDA_ENVIRONMENT_BYTES = 4096;
/** IAM's limit on the inline policies of a role, whitespace not counted. */
const ROLE_INLINE_POLICY_CHARACTERS = 10_240;
/** API Gateway's default quota of routes per HTTP API (and resources per REST API). */
const ROUTES_PER_API = 300;

/** The default stack name, which the physical names of created resources start with. */
const STACK_NAME = 'WebhookReceiver';

/**
 * What a deployed `Ref` or `Fn::GetAtt` gives, with names as long as CloudFormation makes them
 * in a region with a long name: a created secret is named `<logical id>-<12 random>`, and Secrets
 * Manager adds `-<6 random>` to its ARN; a created queue is `<stack>-<logical id>-<12 random>`.
 */
function physicalValue(template: Template) {
  const resources = template.toJSON().Resources;
  const prefix = 'arn:aws:secretsmanager:ap-southeast-2:123456789012';
  return (logicalId: string, attribute?: string): string => {
    const type: string = resources[logicalId].Type;
    const name = `${STACK_NAME}-${logicalId}-AbCdEfGhIjKl`;
    if (type === 'AWS::SecretsManager::Secret')
      return `${prefix}:secret:${logicalId}-AbCdEfGhIjKl-AbC123`;
    if (type === 'AWS::SQS::Queue' && attribute === undefined)
      return `https://sqs.ap-southeast-2.amazonaws.com/123456789012/${name}`;
    // A delivery stream's Ref is its name, which Firehose caps at 64 characters.
    if (type === 'AWS::KinesisFirehose::DeliveryStream' && attribute === undefined)
      return name.slice(0, 64);
    return `arn:aws:${type.split('::')[1]?.toLowerCase()}:ap-southeast-2:123456789012:${name}`;
  };
}

/** `count` distinct endpoint names of `length` characters. */
function endpointNames(count: number, length: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    `${'e'.repeat(length)}${index}`.slice(-length).padStart(length, 'e'),
  );
}

/** The receiver's environment and its role's inline policy as deployed, with `count` endpoints. */
function deployedReceiver(count: number, nameLength: number) {
  const names = endpointNames(count, nameLength);
  expect(new Set(names).size).toBe(count);
  const stack = new ReceiverStack(new App(appProps(SKIP_BUNDLING)), STACK_NAME, {
    endpoints: names.map((name) => ({ name })),
  });
  const template = Template.fromStack(stack);
  const physical = physicalValue(template);
  const receiver =
    template.toJSON().Resources[
      stack.getLogicalId(stack.receiver.receiverFunction.node.defaultChild as never)
    ].Properties;
  const roleId: string = receiver.Role['Fn::GetAtt'][0];
  const policies = Object.values(
    template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
  ).map((policy) => deployedValue(policy.Properties.PolicyDocument, physical));
  return {
    environment: deployedValue(receiver.Environment.Variables, physical) as Record<string, string>,
    policyCharacters: policies
      .map((policy) => JSON.stringify(policy).length)
      .reduce((a, b) => a + b),
    routes: template.findResources('AWS::ApiGatewayV2::Route'),
  };
}

/** Size of a function's environment as Lambda limits it (counted as its JSON, an upper bound). */
function environmentBytes(environment: Record<string, string>): number {
  return Buffer.byteLength(JSON.stringify(environment));
}

describe('Scale: endpoints one deployment takes', () => {
  // The figures docs/endpoints.md states: per name length, the most
  // endpoints whose ENDPOINT_SECRET_IDS (created secrets' full ARNs) fit Lambda's 4 KB.
  it.each([
    { nameLength: 32, endpoints: 19, bytesPerEndpoint: 185 },
    { nameLength: 2, endpoints: 28, bytesPerEndpoint: 125 },
  ])(
    'fits $endpoints endpoints of $nameLength characters in the 4 KB environment, and no more',
    ({ nameLength, endpoints, bytesPerEndpoint }) => {
      // Act: one more endpoint than the limit, and the same receiver without the last one.
      const over = deployedReceiver(endpoints + 1, nameLength);
      const secretIds = JSON.parse(over.environment.ENDPOINT_SECRET_IDS ?? '');
      delete secretIds[endpointNames(endpoints + 1, nameLength).at(-1) ?? ''];
      const atLimit = { ...over.environment, ENDPOINT_SECRET_IDS: JSON.stringify(secretIds) };

      // Assess: the environment binds first; the role's policy and the routes stay far below theirs.
      expect(environmentBytes(atLimit)).toBeLessThanOrEqual(LAMBDA_ENVIRONMENT_BYTES);
      expect(environmentBytes(over.environment)).toBeGreaterThan(LAMBDA_ENVIRONMENT_BYTES);
      expect(environmentBytes(over.environment) - environmentBytes(atLimit)).toBe(bytesPerEndpoint);
      expect(over.policyCharacters).toBeLessThan(ROLE_INLINE_POLICY_CHARACTERS / 2);
      expect(Object.keys(over.routes)).toHaveLength(endpoints + 1);
      expect(endpoints + 1).toBeLessThan(ROUTES_PER_API);
    },
  );
});
