import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { VENDED_LOGS_PREFIX } from '../../../lib/log-group.js';
import { WebhookReceiver } from '../../../lib/webhook-receiver.js';
import { templateTestApp } from '../cdk-app.js';
import { type Synthesized, synthesize } from '../synthesize.js';

describe('Function: createHttpApi (ingress http-api, the default)', () => {
  let defaults: Synthesized;
  let configured: Synthesized;

  beforeAll(() => {
    defaults = synthesize(() => ({}));
    configured = synthesize(() => ({
      ingress: 'http-api',
      throttleRateLimit: 10,
      throttleBurstLimit: 20,
      logRetention: RetentionDays.ONE_WEEK,
    }));
  });

  it('creates an HTTP API whose only route is POST /webhook, into the receiver with payload format 2.0', () => {
    // Prepare
    const { template, receiver, id } = defaults;

    // Assess
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    template.resourceCountIs('AWS::Lambda::Url', 0);
    template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'POST /webhook',
      AuthorizationType: 'NONE',
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
    });
    expect(receiver.functionUrl).toBeUndefined();
  });

  it('lets only this API invoke the receiver', () => {
    // Prepare
    const { template, receiver, id } = defaults;

    // Assess
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    expect(permissions).toHaveLength(1);
    expect(permissions[0]?.Properties).toMatchObject({
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
    });
    expect(JSON.stringify(permissions[0]?.Properties.SourceArn)).toContain(id(receiver.api));
    expect(JSON.stringify(permissions[0]?.Properties.SourceArn)).toContain('/webhook');
  });

  it('throttles the $default stage with the throttle props and logs access as JSON', () => {
    // Prepare
    const { template, receiver, id } = defaults;

    // Assess
    template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [id(receiver.accessLogGroup), 'Arn'] },
        Format: Match.stringLikeRegexp(
          '"requestId":"\\$context.requestId".*"status":"\\$context.status"',
        ),
      },
    });
    expect(defaults.resource(receiver.accessLogGroup).Properties.RetentionInDays).toBe(30);
    configured.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
    });
    expect(configured.resource(configured.receiver.accessLogGroup).Properties.RetentionInDays).toBe(
      7,
    );
  });

  it("names the access log group under /aws/vendedlogs/ after the stack and the API's id, which a redeploy after cdk destroy changes", () => {
    // Prepare
    const { resource, receiver, id } = defaults;

    // Act
    const group = resource(receiver.accessLogGroup);
    const [prefix, apiId] = group.Properties.LogGroupName['Fn::Join'][1];

    // Assess: the group outlives the stack, so only a new API id keeps the next deploy's name free.
    expect(prefix).toMatch(
      new RegExp(`^${VENDED_LOGS_PREFIX}apigateway/TestStack-Receiver-\\w+/$`),
    );
    expect(apiId).toEqual({ Ref: id(receiver.api) });
    expect(group).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it("names the API after its stack and construct, unlike another receiver's", () => {
    // Prepare
    const stack = new Stack(templateTestApp(), 'BookingHooks');
    new WebhookReceiver(stack, 'Eu', {});
    new WebhookReceiver(stack, 'Us', {});

    // Act
    const names = Object.values(
      Template.fromStack(stack).findResources('AWS::ApiGatewayV2::Api'),
    ).map((api) => api.Properties.Name);

    // Assess
    expect(names).toEqual([
      expect.stringMatching(/^BookingHooks-Eu-\w+$/),
      expect.stringMatching(/^BookingHooks-Us-\w+$/),
    ]);
    defaults.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      Name: Match.stringLikeRegexp('^TestStack-Receiver-'),
    });
  });

  it('gives the full URL of the route and alarms on the API 5xx count', () => {
    // Prepare
    const { stack, receiver, resource } = defaults;

    // Act
    const url = stack.resolve(receiver.url);

    // Assess: ApiEndpoint is https://<api id>.execute-api.<region>.amazonaws.com
    expect(url).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [defaults.id(receiver.api), 'ApiEndpoint'] }, '/webhook']],
    });
    expect(resource(receiver.alarms.apiServerErrors).Properties).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Statistic: 'Sum',
      Dimensions: [{ Name: 'ApiId', Value: { Ref: defaults.id(receiver.api) } }],
    });
  });

  it('creates no account-wide API Gateway setting, which HTTP APIs do not need', () => {
    defaults.template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
