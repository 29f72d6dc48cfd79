import { Stack } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import {
  INGRESS_KINDS,
  type IngressKind,
  type WebhookReceiverProps,
} from '../../lib/webhook-receiver-props.js';
import { templateTestApp } from './cdk-app.js';
import { deployedValue } from './deployed-value.js';
import {
  IMPORTED_SECRET_ARN,
  policyStatements,
  type Synthesized,
  statementsOfRole,
  synthesize,
  writeLogsStatement,
} from './synthesize.js';

/** `eu` with an imported secret and its own JSON field, `us-west` with a placeholder secret. */
function endpointsProps(ingress: IngressKind): (stack: Stack) => WebhookReceiverProps {
  return (stack) => ({
    ingress,
    secretJsonField: 'key',
    endpoints: [
      {
        name: 'eu',
        secret: Secret.fromSecretCompleteArn(stack, 'EuKey', IMPORTED_SECRET_ARN),
        secretJsonField: 'webhook_secret',
      },
      { name: 'us-west' },
    ],
  });
}

/** The receiver function's environment variables as deployed, with `<logical id>` for a Ref. */
function deployedEnvironment({ receiver, resource }: Synthesized): Record<string, string> {
  return deployedValue(
    resource(receiver.receiverFunction).Properties.Environment.Variables,
    (logicalId) => `<${logicalId}>`,
  ) as Record<string, string>;
}

describe('Class: WebhookReceiver with endpoints', () => {
  // One synth per front door, shared by every test of the file.
  const synthesized = {} as Record<IngressKind, Synthesized>;

  beforeAll(() => {
    for (const ingress of INGRESS_KINDS) {
      synthesized[ingress] = synthesize(endpointsProps(ingress));
    }
  });

  it('routes POST /webhook/<name> of each endpoint, and nothing else, on the HTTP API', () => {
    // Prepare
    const { template, receiver, id } = synthesized['http-api'];

    // Act
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties,
    );

    // Assess
    expect(routes.map((route) => route.RouteKey).sort()).toEqual([
      'POST /webhook/eu',
      'POST /webhook/us-west',
    ]);
    template.resourceCountIs('AWS::ApiGatewayV2::Integration', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
    });
    expect(new Set(routes.map((route) => JSON.stringify(route.Target))).size).toBe(1);
  });

  it('serves POST on one /webhook/{endpoint} resource for every endpoint, and no method on /webhook, on the REST API', () => {
    // Prepare
    const { template } = synthesized['rest-api'];
    const resources = template.findResources('AWS::ApiGateway::Resource');
    const pathOf = (logicalId: string): string => {
      const { ParentId, PathPart } = resources[logicalId]?.Properties ?? {};
      return ParentId.Ref === undefined ? `/${PathPart}` : `${pathOf(ParentId.Ref)}/${PathPart}`;
    };

    // Act
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).map(
      (method) => `${method.Properties.HttpMethod} ${pathOf(method.Properties.ResourceId.Ref)}`,
    );

    // Assess
    expect(methods).toEqual(['POST /webhook/{endpoint}']);
    expect(Object.keys(resources)).toHaveLength(2);
  });

  it('serves every endpoint on the one function URL', () => {
    synthesized['function-url'].template.resourceCountIs('AWS::Lambda::Url', 1);
  });

  it.each([
    ['http-api', 'ApiEndpoint', '/webhook/'],
    ['rest-api', undefined, '/webhook/'],
    ['function-url', 'FunctionUrl', 'webhook/'],
  ] as const)(
    'gives each endpoint the front door URL and its path (%s)',
    (ingress, attribute, path) => {
      // Prepare
      const { stack, receiver, id } = synthesized[ingress];
      const origin = ingress === 'function-url' ? receiver.functionUrl : receiver.api;

      // Act
      const urls = receiver.endpoints.map(({ name, url }) => [name, stack.resolve(url)]);

      // Assess
      expect(urls.map(([name]) => name)).toEqual(['eu', 'us-west']);
      for (const [name, url] of urls) {
        const parts: unknown[] = url['Fn::Join'][1];
        expect(parts.at(-1)).toBe(`${path}${name}`);
        if (attribute !== undefined) {
          expect(parts[0]).toEqual({ 'Fn::GetAtt': [id(origin), attribute] });
        } else {
          expect(parts).toContainEqual({ Ref: id(origin) });
        }
      }
    },
  );

  it.each(['http-api', 'rest-api'] as const)(
    'lets only this API invoke the receiver, with one permission for all endpoints (%s)',
    (ingress) => {
      // Prepare
      const { template, receiver, id } = synthesized[ingress];

      // Act
      const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map(
        (permission) => permission.Properties,
      );

      // Assess
      expect(permissions).toHaveLength(1);
      expect(permissions[0]).toMatchObject({
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
        Principal: 'apigateway.amazonaws.com',
      });
      expect(permissions[0]?.SourceArn['Fn::Join'][1]).toContainEqual({ Ref: id(receiver.api) });
    },
  );

  it.each(INGRESS_KINDS)(
    "lets the receiver read exactly the endpoints' secrets and their directory, nothing else (%s)",
    (ingress) => {
      // Prepare
      const { template, receiver, id } = synthesized[ingress];
      const [eu, usWest] = receiver.endpoints;
      const roleId = id(receiver.node.findChild('ReceiverRole'));
      const read = ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'];

      // Act
      const managed = Object.values(
        template.findResources('AWS::IAM::ManagedPolicy', {
          Properties: { Roles: [{ Ref: roleId }] },
        }),
      ).map((policy) => policy.Properties.PolicyDocument.Statement);

      // Assess: the endpoints' secrets in a managed policy of their own (IAM limits a role's
      // inline policies to 10,240 characters, which a hundred ARNs pass).
      expect(managed).toEqual([
        [
          {
            Effect: 'Allow',
            Action: read,
            Resource: [IMPORTED_SECRET_ARN, { Ref: id(usWest?.secret) }],
          },
        ],
      ]);
      expect(statementsOfRole(template, roleId)).toEqual([
        writeLogsStatement(id(receiver.node.findChild('ReceiverLogs'))),
        { Effect: 'Allow', Action: read, Resource: { Ref: id(receiver.endpointDirectory) } },
        {
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        },
      ]);
      expect(eu?.secret.secretArn).toBe(IMPORTED_SECRET_ARN);
      for (const statement of policyStatements(template)) {
        expect(JSON.stringify(statement.Resource)).not.toContain('*');
      }
    },
  );

  it.each(INGRESS_KINDS)(
    "lists each endpoint's secret and own JSON field in the endpoint directory the receiver is given, not SECRET_ID (%s)",
    (ingress) => {
      // Prepare
      const synth = synthesized[ingress];
      const usWestSecret = synth.receiver.endpoints[1]?.secret;
      const directory = synth.resource(synth.receiver.endpointDirectory).Properties;

      // Act
      const environment = deployedEnvironment(synth);

      // Assess
      expect(
        JSON.parse(
          deployedValue(directory.SecretString, (logicalId) => `<${logicalId}>`) as string,
        ),
      ).toEqual({
        secretIds: { eu: IMPORTED_SECRET_ARN, 'us-west': `<${synth.id(usWestSecret)}>` },
        jsonFields: { eu: 'webhook_secret' },
      });
      expect(environment.ENDPOINT_DIRECTORY_SECRET_ID).toBe(
        `<${synth.id(synth.receiver.endpointDirectory)}>`,
      );
      expect(environment.ENDPOINT_DIRECTORY_VERSION).toMatch(/^[0-9a-f]{16}$/);
      expect(environment.SECRET_JSON_FIELD).toBe('key');
      for (const variable of ['SECRET_ID', 'ENDPOINT_SECRET_IDS', 'ENDPOINT_SECRET_JSON_FIELDS']) {
        expect(environment).not.toHaveProperty(variable);
      }
    },
  );

  it('creates a placeholder secret for each endpoint without one, the directory, and no single secret', () => {
    // Prepare
    const { template, receiver } = synthesized['http-api'];

    // Assess
    template.resourceCountIs('AWS::SecretsManager::Secret', 2);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      Description:
        'Webhook signing key of endpoint us-west issued by the booking service (replace the random placeholder with put-secret-value)',
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    expect(receiver.secret).toBeUndefined();
  });

  it('lists no JSON fields when no endpoint names one, and changes the directory version with the endpoints', () => {
    // Prepare
    const two = synthesize(() => ({ endpoints: [{ name: 'eu' }, { name: 'us' }] }));
    const three = synthesize(() => ({
      endpoints: [{ name: 'eu' }, { name: 'us' }, { name: 'uk' }],
    }));

    // Act
    const directory = JSON.parse(
      deployedValue(
        two.resource(two.receiver.endpointDirectory).Properties.SecretString,
        (logicalId) => `<${logicalId}>`,
      ) as string,
    );

    // Assess
    expect(Object.keys(directory)).toEqual(['secretIds']);
    expect(Object.keys(directory.secretIds)).toEqual(['eu', 'us']);
    expect(deployedEnvironment(two)).not.toHaveProperty('SECRET_JSON_FIELD');
    expect(deployedEnvironment(two).ENDPOINT_DIRECTORY_VERSION).not.toBe(
      deployedEnvironment(three).ENDPOINT_DIRECTORY_VERSION,
    );
    two.template.resourceCountIs('AWS::SecretsManager::Secret', 3);
  });

  describe('Props validation', () => {
    it('rejects secret together with endpoints', () => {
      // Act
      const build = () => {
        const stack = new Stack(templateTestApp(), 'InvalidStack');
        const secret = Secret.fromSecretCompleteArn(stack, 'Key', IMPORTED_SECRET_ARN);
        return new WebhookReceiver(stack, 'Receiver', { secret, endpoints: [{ name: 'eu' }] });
      };

      // Assess
      expect(build).toThrow(InvalidWebhookReceiverPropsError);
      expect(build).toThrow(/secret cannot be used with endpoints/);
    });

    it('accepts 32 characters of letters, digits and -', () => {
      expect(
        () =>
          new WebhookReceiver(new Stack(templateTestApp(), 'ValidStack'), 'Receiver', {
            endpoints: [{ name: `eu-west-1-${'a'.repeat(22)}` }, { name: '0' }],
          }),
      ).not.toThrow();
    });
  });
});
