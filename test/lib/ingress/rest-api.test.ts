import { Match } from 'aws-cdk-lib/assertions';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../../lambda/contract/endpoints.js';
import { buildApp } from '../../../lib/app.js';
import { InvalidWebhookReceiverPropsError } from '../../../lib/receiver-settings.js';
import { appProps, SKIP_BUNDLING } from '../cdk-app.js';
import { countsPerDepth } from '../dependency-depth.js';
import { type Synthesized, synthesize } from '../synthesize.js';

/**
 * The most API Gateway resources and methods one deployment may ask to create at once: its
 * control plane takes about five such requests a second per account (aws-cdk issue 15573).
 */
const MAX_API_GATEWAY_CREATES_AT_ONCE = 10;

const WEB_ACL_ARN =
  'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/booking-hooks/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

describe('Function: createRestApi (ingress rest-api)', () => {
  let standard: Synthesized;
  let configured: Synthesized;

  beforeAll(() => {
    standard = synthesize(() => ({ ingress: 'rest-api' }));
    configured = synthesize(() => ({
      ingress: 'rest-api',
      throttleRateLimit: 10,
      throttleBurstLimit: 20,
      webAclArn: WEB_ACL_ARN,
      tracing: true,
      apiGatewayCloudWatchRole: false,
    }));
  });

  it('creates a regional REST API whose only route is POST /webhook, proxied to the receiver', () => {
    // Prepare
    const { template, receiver, id } = standard;

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    template.resourceCountIs('AWS::ApiGateway::Resource', 1);
    template.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'webhook' });
    template.resourceCountIs('AWS::ApiGateway::Method', 1);
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'NONE',
      Integration: {
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
        Uri: Match.objectLike({
          'Fn::Join': [
            '',
            Match.arrayWith([{ 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] }]),
          ],
        }),
      },
    });
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
  });

  it('lets only this API invoke the receiver, on POST /webhook', () => {
    // Prepare
    const { template, receiver, id } = standard;

    // Act
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map(
      (permission) => permission.Properties,
    );

    // Assess: one for the stage, one for the console's test invocations of the method.
    expect(permissions.length).toBeGreaterThan(0);
    for (const permission of permissions) {
      expect(permission).toMatchObject({
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
        Principal: 'apigateway.amazonaws.com',
      });
      expect(JSON.stringify(permission.SourceArn)).toContain('/POST/webhook');
    }
  });

  it('serves every named endpoint with one POST /webhook/{endpoint} method, whatever their number', () => {
    // Prepare: 100 endpoints, as `cdk synth -c ingress=rest-api -c endpoints=…` builds them.
    const names = Array.from({ length: 100 }, (_, index) => `endpoint-${index}`);
    const app = buildApp(
      appProps({ ...SKIP_BUNDLING, ingress: 'rest-api', endpoints: names.join(',') }),
    );

    // Act
    const { Resources } = app.synth().getStackByName(DEFAULT_STACK_NAME).template;
    const apiGateway = ['AWS::ApiGateway::Resource', 'AWS::ApiGateway::Method'];
    const perDepth = countsPerDepth(Resources, apiGateway);
    const paths = Object.values(
      Resources as Record<string, { Type: string; Properties: { PathPart?: string } }>,
    )
      .filter(({ Type }) => Type === 'AWS::ApiGateway::Resource')
      .map(({ Properties }) => Properties.PathPart);

    // Assess
    expect(perDepth[0]?.count).toBeLessThanOrEqual(MAX_API_GATEWAY_CREATES_AT_ONCE);
    expect(paths).toEqual(['webhook', '{endpoint}']);
    expect(perDepth.reduce((sum, { count }) => sum + count, 0)).toBe(3);
    console.info(
      `rest-api, 100 endpoints: API Gateway resources and methods per dependency depth ${JSON.stringify(perDepth)}`,
    );
  });

  it('throttles the stage, logs access as JSON, keeps detailed metrics off and logs errors without bodies', () => {
    // Prepare
    const { template, receiver, id } = standard;

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 300,
          ThrottlingBurstLimit: 600,
          MetricsEnabled: false,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ],
      AccessLogSetting: {
        DestinationArn: {
          'Fn::Join': ['', Match.arrayWith([{ Ref: id(receiver.accessLogGroup) }])],
        },
        Format: Match.stringLikeRegexp(
          '"requestId":"\\$context.requestId".*"status":"\\$context.status"',
        ),
      },
      TracingEnabled: false,
    });
    configured.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })],
      TracingEnabled: true,
    });
  });

  it('associates the web ACL of webAclArn with the stage, and none without it', () => {
    // Prepare
    const { template, receiver, id } = configured;

    // Assess
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: WEB_ACL_ARN,
      ResourceArn: Match.objectLike({
        'Fn::Join': [
          '',
          Match.arrayWith([
            { Ref: id(receiver.api) },
            { Ref: id((receiver.api as RestApi).deploymentStage) },
          ]),
        ],
      }),
    });
    standard.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('sets the account logging role once, kept when the stack is deleted, unless told the account already has one', () => {
    // Prepare
    const { template } = standard;

    // Assess: other REST APIs of the account log through it after this stack is gone
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResource('AWS::ApiGateway::Account', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.hasResource('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        },
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    configured.template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('gives the /webhook URL, adds no output of its own and alarms on the API 5xx count', () => {
    // Prepare
    const { stack, receiver, template, resource } = standard;

    // Act
    const parts: unknown[] = stack.resolve(receiver.url)['Fn::Join'][1];

    // Assess
    expect(parts[0]).toBe('https://');
    expect(parts.at(-1)).toBe('/webhook');
    expect(template.findOutputs('*')).toEqual({});
    expect(resource(receiver.alarms.apiServerErrors).Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Sum',
      Dimensions: [{ Name: 'ApiName', Value: (receiver.api as RestApi).restApiName }],
    });
  });

  it.each([
    ['with another ingress', { ingress: 'http-api', webAclArn: WEB_ACL_ARN }],
    ['that is not a web ACL ARN', { ingress: 'rest-api', webAclArn: 'arn:aws:s3:::bucket' }],
  ] as const)('rejects webAclArn %s', (_name, props) => {
    expect(() => synthesize(() => props)).toThrow(InvalidWebhookReceiverPropsError);
    expect(() => synthesize(() => props)).toThrow(/webAclArn/);
  });
});
