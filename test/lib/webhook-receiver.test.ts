import { type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/receiver/config.js';
import { createHandler } from '../../lambda/receiver/handler.js';
import {
  InvalidWebhookReceiverPropsError,
  WebhookReceiver,
  type WebhookReceiverProps,
} from '../../lib/webhook-receiver.js';
import { lambdaContext, restApiEvent } from '../support/api-gateway-events.js';
import { captureOutput } from '../support/capture-output.js';
import { templateTestApp } from './cdk-app.js';

const IMPORTED_SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:booking-webhook-key-AbC123';

interface Synthesized {
  readonly stack: Stack;
  readonly receiver: WebhookReceiver;
  readonly template: Template;
  /** Logical id of a construct's CloudFormation resource, as the template names it. */
  readonly id: (construct: IConstruct) => string;
}

function synthesize(props: (stack: Stack) => WebhookReceiverProps): Synthesized {
  const stack = new Stack(templateTestApp(), 'TestStack');
  const receiver = new WebhookReceiver(stack, 'Receiver', props(stack));
  return {
    stack,
    receiver,
    template: Template.fromStack(stack),
    id: (construct) => stack.getLogicalId(construct.node.defaultChild as CfnElement),
  };
}

/** Every IAM statement of the template's inline policies. */
function policyStatements(template: Template): Array<Record<string, unknown>> {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement,
  );
}

/** The statements of the inline policy attached to a role. */
function statementsOfRole(template: Template, roleId: string): unknown[] {
  const policies = Object.values(
    template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: roleId }] },
    }),
  );
  expect(policies).toHaveLength(1);
  return policies[0]?.Properties.PolicyDocument.Statement;
}

/** The statement that lets a function write to its own log group, and nothing else of CloudWatch Logs. */
function writeLogsStatement(logGroupId: string) {
  return {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
  };
}

describe('Class: WebhookReceiver', () => {
  // Three synths for the whole file (bundling off): defaults, FIFO with every option set, and
  // without the consumer.
  let standard: Synthesized;
  let fifo: Synthesized;
  let withoutConsumer: Synthesized;

  beforeAll(() => {
    standard = synthesize(() => ({}));
    fifo = synthesize((stack) => ({
      fifo: true,
      secret: Secret.fromSecretCompleteArn(stack, 'Imported', IMPORTED_SECRET_ARN),
      signatureToleranceSeconds: 120,
      previousKeyGraceSeconds: 0,
      forwardEvents: ['*'],
      throttleRateLimit: 10,
      throttleBurstLimit: 20,
      alarmEmail: 'ops@example.com',
      serviceName: 'bookings-receiver',
      logRetention: RetentionDays.ONE_WEEK,
      signatureRejectionAlarmThreshold: 25,
      messageAgeAlarmThreshold: Duration.minutes(30),
      apiGatewayCloudWatchRole: false,
    }));
    withoutConsumer = synthesize(() => ({ consumer: false }));
  });

  describe('API', () => {
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
            'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [id(receiver.handler), 'Arn'] }])],
          }),
        },
      });
    });

    it('throttles the stage, logs access as JSON, turns metrics on and logs errors without bodies', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [
          {
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 100,
            ThrottlingBurstLimit: 200,
            MetricsEnabled: true,
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
      });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('applies the throttling props to the stage', () => {
      fifo.template.hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 })],
      });
    });

    it('creates the API Gateway logging role unless told the account already has one', () => {
      standard.template.resourceCountIs('AWS::ApiGateway::Account', 1);
      fifo.template.resourceCountIs('AWS::ApiGateway::Account', 0);
    });

    it('exposes the /webhook URL and leaves out the base-URL output RestApi adds', () => {
      // Prepare
      const { stack, receiver, template } = standard;

      // Act
      const parts: unknown[] = stack.resolve(receiver.url)['Fn::Join'][1];

      // Assess
      expect(parts[0]).toBe('https://');
      expect(parts.at(-1)).toBe('/webhook');
      expect(template.findOutputs('*')).toEqual({});
    });
  });

  describe('Receiver function', () => {
    it('runs Node.js 24 on ARM64 with the chosen memory and timeout, logging to its own log group', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const logGroup = receiver.node.findChild('ReceiverLogs');

      // Assess
      template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: Match.absent(),
        Handler: 'index.handler',
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 512,
        Timeout: 15,
        LoggingConfig: { LogGroup: { Ref: id(logGroup) } },
      });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('is configured through exactly the environment variables of the receiver contract', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: 'index.handler',
        MemorySize: 512,
        Environment: {
          Variables: {
            SECRET_ID: { Ref: id(receiver.secret) },
            QUEUE_URL: { Ref: id(receiver.queue) },
            SIGNATURE_TOLERANCE_SECONDS: '300',
            PREVIOUS_KEY_GRACE_SECONDS: '86400',
            FORWARD_EVENTS: 'event_booked',
            POWERTOOLS_SERVICE_NAME: 'webhook-receiver',
            POWERTOOLS_METRICS_NAMESPACE: 'ServiceWebhookReceiver',
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
    });

    it('passes the props into the environment', () => {
      fifo.template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            SECRET_ID: IMPORTED_SECRET_ARN,
            SIGNATURE_TOLERANCE_SECONDS: '120',
            PREVIOUS_KEY_GRACE_SECONDS: '0',
            FORWARD_EVENTS: '*',
            POWERTOOLS_SERVICE_NAME: 'bookings-receiver',
          }),
        },
      });
      fifo.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    });

    it('may only write its logs, read its own secret and send to its own queue', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const logGroup = receiver.node.findChild('ReceiverLogs');
      const role = receiver.node.findChild('ReceiverRole');

      // Assess
      expect(statementsOfRole(template, id(role))).toEqual([
        writeLogsStatement(id(logGroup)),
        {
          Effect: 'Allow',
          Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
          Resource: { Ref: id(receiver.secret) },
        },
        {
          Effect: 'Allow',
          Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
          Resource: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        },
      ]);
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        },
        ManagedPolicyArns: Match.absent(),
      });
    });

    it('grants an imported secret by its exact ARN', () => {
      // Prepare
      const { template, receiver, id } = fifo;
      const role = receiver.node.findChild('ReceiverRole');

      // Assess
      expect(statementsOfRole(template, id(role))).toContainEqual({
        Effect: 'Allow',
        Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
        Resource: IMPORTED_SECRET_ARN,
      });
    });

    it('grants no action on a wildcard resource in any variant', () => {
      for (const { template } of [standard, fifo, withoutConsumer]) {
        for (const statement of policyStatements(template)) {
          expect(JSON.stringify(statement.Resource)).not.toContain('*');
          expect(JSON.stringify(statement.Action)).not.toContain('*');
        }
      }
    });
  });

  describe('Queues', () => {
    it('accepts messages up to 1 MiB, so a body at MAX_BODY_BYTES plus its attributes fits', () => {
      // Assess
      standard.template.allResourcesProperties('AWS::SQS::Queue', {
        MaximumMessageSize: 1024 * 1024,
      });
    });

    it('encrypts both queues with SQS-managed keys, keeps messages 14 days and refuses plain HTTP', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.resourceCountIs('AWS::SQS::Queue', 2);
      template.allResourcesProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      for (const queue of [receiver.queue, receiver.deadLetterQueue]) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id(queue) }],
          PolicyDocument: {
            Statement: [
              {
                Effect: 'Deny',
                Action: 'sqs:*',
                Principal: { AWS: '*' },
                Condition: { Bool: { 'aws:SecureTransport': 'false' } },
                Resource: { 'Fn::GetAtt': [id(queue), 'Arn'] },
              },
            ],
          },
        });
      }
    });

    it('moves a message to the dead-letter queue after 5 receives', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::SQS::Queue', {
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [id(receiver.deadLetterQueue), 'Arn'] },
          maxReceiveCount: 5,
        },
      });
    });

    it('keeps a message invisible for at least six consumer timeouts plus the batching window', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const queue = template.toJSON().Resources[id(receiver.queue)];
      const consumer = template.toJSON().Resources[id(receiver.consumer as IConstruct)];
      const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0];

      // Assess
      expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * consumer.Properties.Timeout + mapping?.Properties.MaximumBatchingWindowInSeconds,
      );
    });

    it('creates standard queues by default and FIFO queues when fifo is set', () => {
      standard.template.allResourcesProperties('AWS::SQS::Queue', { FifoQueue: Match.absent() });
      fifo.template.resourceCountIs('AWS::SQS::Queue', 2);
      fifo.template.allResourcesProperties('AWS::SQS::Queue', {
        FifoQueue: true,
        ContentBasedDeduplication: Match.absent(),
      });
    });
  });

  describe('Secret', () => {
    it('creates a secret with a random 64-character placeholder and no rotation when none is given', () => {
      standard.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
      standard.template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
        SecretString: Match.absent(),
      });
      standard.template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
    });

    it('creates no secret when one is given', () => {
      fifo.template.resourceCountIs('AWS::SecretsManager::Secret', 0);
      expect(fifo.receiver.secret.secretArn).toBe(IMPORTED_SECRET_ARN);
    });
  });

  describe('Consumer', () => {
    it('consumes the queue in batches of 10 within 1 s, reporting partial batch failures', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        FunctionName: { Ref: id(receiver.consumer as IConstruct) },
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 256,
        Timeout: 30,
        Environment: {
          Variables: {
            POWERTOOLS_SERVICE_NAME: 'webhook-receiver-consumer',
            POWERTOOLS_METRICS_NAMESPACE: 'ServiceWebhookReceiver',
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
    });

    it('may only consume its own queue and write its logs', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const logGroup = receiver.node.findChild('ConsumerLogs');
      const role = receiver.node.findChild('ConsumerRole');

      // Assess
      expect(statementsOfRole(template, id(role))).toEqual([
        writeLogsStatement(id(logGroup)),
        {
          Effect: 'Allow',
          Action: [
            'sqs:ChangeMessageVisibility',
            'sqs:DeleteMessage',
            'sqs:GetQueueAttributes',
            'sqs:GetQueueUrl',
            'sqs:ReceiveMessage',
          ],
          Resource: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        },
      ]);
    });

    it('uses no batching window on a FIFO queue, which does not support one', () => {
      fifo.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: Match.absent(),
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it('deploys no consumer when consumer is false', () => {
      // Prepare
      const { template, receiver } = withoutConsumer;

      // Assess
      expect(receiver.consumer).toBeUndefined();
      template.resourceCountIs('AWS::Lambda::Function', 1);
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
      template.resourceCountIs('AWS::SQS::Queue', 2);
    });
  });

  describe('Alarms', () => {
    const alarmCases = [
      {
        name: 'dead-letter queue not empty',
        key: 'deadLetterQueueNotEmpty',
        properties: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Statistic: 'Maximum',
          Period: 60,
          Threshold: 0,
        },
      },
      {
        name: 'oldest message older than 15 minutes',
        key: 'oldestMessageAge',
        properties: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Statistic: 'Maximum',
          Period: 60,
          Threshold: 900,
        },
      },
      {
        name: 'receiver errors',
        key: 'receiverErrors',
        properties: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Statistic: 'Sum',
          Threshold: 0,
        },
      },
      {
        name: 'receiver throttles',
        key: 'receiverThrottles',
        properties: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Throttles',
          Statistic: 'Sum',
          Threshold: 0,
        },
      },
      {
        name: 'API 5xx',
        key: 'apiServerErrors',
        properties: {
          Namespace: 'AWS/ApiGateway',
          MetricName: '5XXError',
          Statistic: 'Sum',
          Threshold: 0,
        },
      },
      {
        name: 'at least 10 signature rejections in 5 minutes',
        key: 'signatureRejections',
        properties: {
          Namespace: 'ServiceWebhookReceiver',
          MetricName: 'SignatureRejected',
          Dimensions: [{ Name: 'service', Value: 'webhook-receiver' }],
          Statistic: 'Sum',
          Period: 300,
          Threshold: 9,
        },
      },
    ] as const;

    it.each(alarmCases)('raises an alarm on $name', ({ key, properties }) => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      const alarm = template.toJSON().Resources[id(receiver.alarms[key])];
      expect(alarm.Properties).toMatchObject({
        ...properties,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    });

    it('watches the metric the deployed receiver emits on a 401, in its namespace and service', async () => {
      // Prepare
      const { template, receiver, id } = fifo;
      const resources = template.toJSON().Resources;
      const alarm = resources[id(receiver.alarms.signatureRejections)].Properties;
      const variables: Record<string, unknown> =
        resources[id(receiver.handler)].Properties.Environment.Variables;
      const deployed = Object.fromEntries(
        Object.entries(variables).filter(
          (entry): entry is [string, string] =>
            entry[0] !== 'SECRET_ID' && typeof entry[1] === 'string',
        ),
      );
      // The key and queue are deploy-time references: a local key and a never-used URL stand in.
      const handler = createHandler(
        loadConfig({
          ...deployed,
          WEBHOOK_SECRET: 'local-key',
          QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/unused',
        }),
      );
      const output = captureOutput();

      // Act
      const response = await handler(restApiEvent({ body: '{}' }), lambdaContext()).finally(() =>
        output.restore(),
      );

      // Assess
      expect(response.statusCode).toBe(401);
      expect(output.metricValues()).toContainEqual({
        name: alarm.MetricName,
        value: 1,
        dimensions: { service: 'bookings-receiver' },
      });
      expect(alarm.Dimensions).toEqual([{ Name: 'service', Value: 'bookings-receiver' }]);
      expect(output.metrics()).toContainEqual(
        expect.objectContaining({
          _aws: expect.objectContaining({
            CloudWatchMetrics: [expect.objectContaining({ Namespace: alarm.Namespace })],
          }),
          [alarm.MetricName]: 1,
        }),
      );
    });

    it('watches the receiver, the API and the right queue', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const dimensionsOf = (key: keyof WebhookReceiver['alarms']) =>
        template.toJSON().Resources[id(receiver.alarms[key])].Properties.Dimensions;

      // Assess
      expect(dimensionsOf('deadLetterQueueNotEmpty')).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [id(receiver.deadLetterQueue), 'QueueName'] } },
      ]);
      expect(dimensionsOf('oldestMessageAge')).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [id(receiver.queue), 'QueueName'] } },
      ]);
      expect(dimensionsOf('receiverErrors')).toEqual([
        { Name: 'FunctionName', Value: { Ref: id(receiver.handler) } },
      ]);
      expect(dimensionsOf('apiServerErrors')).toEqual([
        { Name: 'ApiName', Value: receiver.api.restApiName },
      ]);
    });

    it('creates six alarms with no actions and no topic when no e-mail is given', () => {
      standard.template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
      standard.template.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: Match.absent(),
      });
      standard.template.resourceCountIs('AWS::SNS::Topic', 0);
      expect(standard.receiver.alarmTopic).toBeUndefined();
    });

    it('notifies an SSL-only topic with the e-mail subscribed when alarmEmail is set', () => {
      // Prepare
      const { template, receiver, id } = fifo;
      const topicId = id(receiver.alarmTopic as IConstruct);

      // Assess
      template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
      template.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: [{ Ref: topicId }],
      });
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'ops@example.com',
        TopicArn: { Ref: topicId },
      });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topicId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sns:Publish',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Allow',
              Action: 'sns:Publish',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Resource: { Ref: topicId },
              Condition: {
                StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
                ArnLike: { 'aws:SourceArn': Match.anyValue() },
              },
            }),
          ]),
        },
      });
    });

    it('applies the alarm thresholds and the service name from the props', () => {
      // Prepare
      const { template, receiver, id } = fifo;
      const propertiesOf = (key: keyof WebhookReceiver['alarms']) =>
        template.toJSON().Resources[id(receiver.alarms[key])].Properties;

      // Assess
      expect(propertiesOf('signatureRejections')).toMatchObject({
        Dimensions: [{ Name: 'service', Value: 'bookings-receiver' }],
        Threshold: 24,
      });
      expect(propertiesOf('oldestMessageAge')).toMatchObject({ Threshold: 1800 });
    });
  });

  describe('Props validation', () => {
    const invalidProps: Array<[string, WebhookReceiverProps, RegExp]> = [
      ['a tolerance of 0', { signatureToleranceSeconds: 0 }, /signatureToleranceSeconds/],
      ['a tolerance above an hour', { signatureToleranceSeconds: 3601 }, /from 1 to 3600/],
      ['a fractional tolerance', { signatureToleranceSeconds: 1.5 }, /signatureToleranceSeconds/],
      ['a negative grace period', { previousKeyGraceSeconds: -1 }, /previousKeyGraceSeconds/],
      ['no event types', { forwardEvents: [] }, /forwardEvents must name/],
      [
        '* mixed with event types, which the receiver refuses at cold start',
        { forwardEvents: ['*', 'event_booked'] },
        /forwardEvents must be '\*' alone/,
      ],
      ['an event type with a comma', { forwardEvents: ['a,b'] }, /"a,b"/],
      ['an empty event type', { forwardEvents: [''] }, /forwardEvents entry ""/],
      ['a rate limit of 0', { throttleRateLimit: 0 }, /throttleRateLimit/],
      ['a burst limit of 0', { throttleBurstLimit: 0 }, /throttleBurstLimit/],
      ['an address without @', { alarmEmail: 'ops.example.com' }, /alarmEmail/],
      ['an empty service name', { serviceName: ' ' }, /serviceName/],
      ['a rejection threshold of 0', { signatureRejectionAlarmThreshold: 0 }, /signatureRejection/],
      [
        'a message age below a minute',
        { messageAgeAlarmThreshold: Duration.seconds(30) },
        /messageAgeAlarmThreshold/,
      ],
    ];

    it.each(invalidProps)('rejects %s', (_name, props, message) => {
      // Act
      const build = () =>
        new WebhookReceiver(new Stack(templateTestApp(), 'InvalidStack'), 'Receiver', props);

      // Assess
      expect(build).toThrow(InvalidWebhookReceiverPropsError);
      expect(build).toThrow(message);
    });

    it('accepts 0 as the grace period (turns AWSPREVIOUS off) and * as the only event type', () => {
      // Prepare
      const stack = new Stack(templateTestApp(), 'ValidStack');

      // Act
      const build = () =>
        new WebhookReceiver(stack, 'Receiver', {
          previousKeyGraceSeconds: 0,
          forwardEvents: ['*'],
        });

      // Assess
      expect(build).not.toThrow();
    });
  });
});
