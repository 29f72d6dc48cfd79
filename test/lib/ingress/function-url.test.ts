import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidWebhookReceiverPropsError } from '../../../lib/receiver-settings.js';
import { type Synthesized, synthesize } from '../synthesize.js';

describe('Function: createFunctionUrl (ingress function-url)', () => {
  let open: Synthesized;
  let reserved: Synthesized;

  beforeAll(() => {
    open = synthesize(() => ({ ingress: 'function-url' }));
    reserved = synthesize(() => ({ ingress: 'function-url', reservedConcurrency: 50 }));
  });

  it('creates a public function URL on the receiver and no API', () => {
    // Prepare
    const { template, receiver, id } = open;

    // Assess
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      TargetFunctionArn: { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] },
    });
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    expect(receiver.api).toBeUndefined();
    expect(receiver.accessLogGroup).toBeUndefined();
  });

  it('grants both permissions AWS requires for public invocation, each limited to calls through the URL', () => {
    // Prepare
    const { template, receiver, id } = open;
    const functionArn = { 'Fn::GetAtt': [id(receiver.receiverFunction), 'Arn'] };

    // Act
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission')).map(
      (permission) => permission.Properties,
    );

    // Assess
    expect(permissions).toHaveLength(2);
    expect(permissions).toContainEqual({
      Action: 'lambda:InvokeFunctionUrl',
      FunctionName: functionArn,
      Principal: '*',
      FunctionUrlAuthType: 'NONE',
    });
    expect(permissions).toContainEqual({
      Action: 'lambda:InvokeFunction',
      FunctionName: functionArn,
      Principal: '*',
      InvokedViaFunctionUrl: true,
    });
  });

  it('throttles with reservedConcurrency only when given (a new account cannot reserve)', () => {
    expect(
      open.resource(open.receiver.receiverFunction).Properties.ReservedConcurrentExecutions,
    ).toBeUndefined();
    expect(
      reserved.resource(reserved.receiver.receiverFunction).Properties.ReservedConcurrentExecutions,
    ).toBe(50);
  });

  it('gives the URL with /webhook and alarms on the URL 5xx count', () => {
    // Prepare
    const { stack, receiver, id, resource } = open;

    // Act
    const url = stack.resolve(receiver.url);

    // Assess
    expect(url).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [id(receiver.functionUrl), 'FunctionUrl'] }, 'webhook']],
    });
    expect(resource(receiver.alarms.apiServerErrors).Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Url5xxCount',
      Statistic: 'Sum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: id(receiver.receiverFunction) } }],
    });
  });

  it.each(['throttleRateLimit', 'throttleBurstLimit'] as const)(
    'rejects %s, which has no stage to throttle here',
    (name) => {
      expect(() => synthesize(() => ({ ingress: 'function-url', [name]: 10 }))).toThrow(
        InvalidWebhookReceiverPropsError,
      );
    },
  );
});
