import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME, STACK_OUTPUTS } from '../../lambda/contract/endpoints.js';
import { MAX_OUTPUTS, ReceiverStack } from '../../lib/receiver-stack.js';
import { MANAGED_POLICY_CHARACTERS } from '../../lib/signing-key.js';
import { appProps, SKIP_BUNDLING } from './cdk-app.js';
import { deployedValue } from './deployed-value.js';

/** Lambda's limit on a function's environment variables, keys and values together. */
const LAMBDA_ENVIRONMENT_BYTES = 4096;
/** IAM's limit on the inline policies of a role, whitespace not counted. */
const ROLE_INLINE_POLICY_CHARACTERS = 10_240;
/** IAM's default quota of managed policies attached to a role. */
const MANAGED_POLICIES_PER_ROLE = 10;
/** Secrets Manager's limit on a secret value: the endpoint directory's. */
const SECRET_VALUE_BYTES = 65_536;
/** CloudFormation's limit of resources per stack. */
const RESOURCES_PER_STACK = 500;
/** API Gateway's default quota of routes per HTTP API (and resources per REST API). */
const ROUTES_PER_API = 300;

/** The default stack name, which the physical names of created resources start with. */
const STACK_NAME = DEFAULT_STACK_NAME;
const REGION = 'ap-southeast-2';

/**
 * What a deployed `Ref` or `Fn::GetAtt` gives, with names as long as CloudFormation makes them
 * in a region with a long name: a created secret is named `<stack>-<logical id>-<12 random>`, and
 * Secrets Manager adds `-<6 random>` to its ARN; a created queue is `<stack>-<logical id>-<12 random>`.
 */
function physicalValue(template: Template) {
  const resources = template.toJSON().Resources;
  return (logicalId: string, attribute?: string): string => {
    if (logicalId === 'AWS::Region') return REGION;
    if (logicalId === 'AWS::Partition') return 'aws';
    if (logicalId === 'AWS::AccountId') return '123456789012';
    if (logicalId === 'AWS::URLSuffix') return 'amazonaws.com';
    const type: string = resources[logicalId].Type;
    const name = `${STACK_NAME}-${logicalId}-AbCdEfGhIjKl`;
    if (type === 'AWS::SecretsManager::Secret')
      return `arn:aws:secretsmanager:${REGION}:123456789012:secret:${name}-AbC123`;
    if (type === 'AWS::SQS::Queue' && attribute === undefined)
      return `https://sqs.${REGION}.amazonaws.com/123456789012/${name}`;
    return `arn:aws:${type.split('::')[1]?.toLowerCase()}:${REGION}:123456789012:${name}`;
  };
}

/** `count` distinct endpoint names of `length` characters. */
function endpointNames(count: number, length: number): string[] {
  return Array.from({ length: count }, (_, index) =>
    `${'e'.repeat(length)}${index}`.slice(-length).padStart(length, 'e'),
  );
}

/** A complete secret ARN for an endpoint, as long as a 32-character name makes it. */
function importedArn(name: string, index: number): string {
  return `arn:aws:secretsmanager:${REGION}:123456789012:secret:booking/webhook/${name}-AbC${String(index).padStart(3, '0')}`;
}

/** What one deployment of `count` endpoints gives, as deployed (references replaced). */
function deployedReceiver(count: number, nameLength: number, imported: boolean) {
  const names = endpointNames(count, nameLength);
  expect(new Set(names).size).toBe(count);
  const stack = new ReceiverStack(new App(appProps(SKIP_BUNDLING)), STACK_NAME, {
    endpoints: names.map((name, index) => ({
      name,
      ...(imported ? { secretArn: importedArn(name, index) } : {}),
    })),
  });
  const template = Template.fromStack(stack);
  const json = template.toJSON();
  const physical = physicalValue(template);
  const { receiver } = stack;
  const logicalId = (construct: { node: { defaultChild?: unknown } } | undefined) =>
    stack.getLogicalId(construct?.node.defaultChild as never);
  const fn = json.Resources[logicalId(receiver.receiverFunction)].Properties;
  const roleId: string = fn.Role['Fn::GetAtt'][0];
  const deployedDocuments = (type: string) =>
    Object.values(template.findResources(type, { Properties: { Roles: [{ Ref: roleId }] } })).map(
      (policy) => deployedValue(policy.Properties.PolicyDocument, physical),
    );
  const directory = deployedValue(
    json.Resources[logicalId(receiver.endpointDirectory)].Properties.SecretString,
    physical,
  ) as string;
  return {
    stack,
    names,
    environment: deployedValue(fn.Environment.Variables, physical) as Record<string, string>,
    inline: deployedDocuments('AWS::IAM::Policy'),
    managed: deployedDocuments('AWS::IAM::ManagedPolicy'),
    directory,
    outputs: Object.keys(json.Outputs),
    resources: Object.keys(json.Resources).length,
    routes: Object.keys(template.findResources('AWS::ApiGatewayV2::Route')).length,
  };
}

/** Size of a function's environment as Lambda limits it (counted as its JSON, an upper bound). */
function environmentBytes(environment: Record<string, string>): number {
  return Buffer.byteLength(JSON.stringify(environment));
}

/** A policy's size as IAM counts it: its JSON without whitespace. */
const characters = (document: unknown): number => JSON.stringify(document).length;

/** Every secret ARN a set of policy documents lets the role read. */
function readableSecrets(documents: unknown[]): string[] {
  return documents.flatMap((document) =>
    (
      document as { Statement: { Action: unknown; Resource: string | string[] }[] }
    ).Statement.filter(({ Action }) =>
      JSON.stringify(Action).includes('secretsmanager:GetSecretValue'),
    ).flatMap(({ Resource }) => [Resource].flat()),
  );
}

describe('Scale: 100 endpoints of 32 characters in one deployment', () => {
  const deployed = {} as Record<'created' | 'imported', ReturnType<typeof deployedReceiver>>;

  beforeAll(() => {
    deployed.created = deployedReceiver(100, 32, false);
    deployed.imported = deployedReceiver(100, 32, true);
  }, 120_000);

  it.each(['created', 'imported'] as const)(
    "keeps the receiver's environment far below Lambda's 4 KB, the mapping in the endpoint directory (%s secrets)",
    (variant) => {
      // Prepare
      const { environment, directory, names } = deployed[variant];

      // Assess
      expect(environmentBytes(environment)).toBeLessThan(LAMBDA_ENVIRONMENT_BYTES / 4);
      expect(Object.keys(JSON.parse(directory).secretIds)).toEqual(names);
      expect(Buffer.byteLength(directory)).toBeLessThan(SECRET_VALUE_BYTES / 3);
      console.info(
        `${variant}: environment ${environmentBytes(environment)} bytes, directory ${Buffer.byteLength(directory)} bytes`,
      );
    },
  );

  it.each(['created', 'imported'] as const)(
    'lets the receiver read exactly the 100 secrets and the directory, within every IAM size limit (%s secrets)',
    (variant) => {
      // Prepare
      const { inline, managed, directory } = deployed[variant];
      const endpointSecrets: string[] = Object.values(JSON.parse(directory).secretIds);

      // Assess: exact ARNs, each once, no wildcard; inline and managed policies within IAM's limits.
      expect(readableSecrets(managed).sort()).toEqual([...endpointSecrets].sort());
      expect(readableSecrets(inline)).toHaveLength(1);
      expect(readableSecrets(inline)[0]).toMatch(/EndpointDirectory/);
      expect(JSON.stringify([inline, managed])).not.toContain('*');
      const inlineCharacters = inline.map(characters).reduce((a, b) => a + b);
      expect(inlineCharacters).toBeLessThan(ROLE_INLINE_POLICY_CHARACTERS / 4);
      for (const document of managed) {
        expect(characters(document)).toBeLessThanOrEqual(MANAGED_POLICY_CHARACTERS);
      }
      expect(managed.length).toBeLessThanOrEqual(MANAGED_POLICIES_PER_ROLE / 2);
      console.info(
        `${variant}: inline policy ${inlineCharacters} characters, managed policies ${managed.map(characters).join(', ')} characters`,
      );
    },
  );

  it.each(['created', 'imported'] as const)(
    'stays within CloudFormation limits: outputs by prefix and directory past 200, with a synth warning (%s secrets)',
    (variant) => {
      // Prepare
      const { outputs, resources, routes, stack } = deployed[variant];

      // Assess
      expect(outputs.length).toBeLessThanOrEqual(MAX_OUTPUTS);
      expect(outputs).toContain(STACK_OUTPUTS.endpointUrlPrefix);
      expect(outputs).toContain(STACK_OUTPUTS.endpointDirectoryArn);
      expect(outputs.filter((output) => output.startsWith('WebhookUrl'))).toEqual([]);
      expect(resources).toBeLessThan(RESOURCES_PER_STACK);
      expect(routes).toBe(100);
      expect(routes).toBeLessThan(ROUTES_PER_API);
      expect(
        Annotations.fromStack(stack).findWarning(
          '*',
          Match.stringLikeRegexp("past CloudFormation's limit of 200 outputs"),
        ),
      ).toHaveLength(1);
      console.info(`${variant}: ${outputs.length} outputs, ${resources} resources`);
    },
  );

  it('keeps an output per endpoint while they fit: 98 endpoints, 200 outputs', () => {
    // Act
    const { outputs, stack } = deployedReceiver(98, 2, false);

    // Assess
    expect(outputs).toHaveLength(MAX_OUTPUTS);
    expect(outputs.filter((output) => output.startsWith('SecretArn'))).toHaveLength(98);
    expect(outputs).not.toContain(STACK_OUTPUTS.endpointDirectoryArn);
    expect(
      Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('outputs')),
    ).toEqual([]);
  });
});
