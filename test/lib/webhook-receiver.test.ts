import { type CfnElement, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LoggingFormat, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/receiver/config.js';
import { createHandler } from '../../lambda/receiver/handler.js';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import type { WebhookReceiverProps } from '../../lib/webhook-receiver-props.js';
import { lambdaContext, restApiEvent } from '../support/api-gateway-events.js';
import { captureOutput } from '../support/capture-output.js';
import type { CfnTemplate } from '../support/deployed-template.js';
import { filteredDataPoints, templateMetricFilters } from '../support/metric-filters.js';
import { templateTestApp } from './cdk-app.js';
import {
  IMPORTED_SECRET_ARN,
  idempotencyRecordsStatement,
  policyStatements,
  type Synthesized,
  statementsOfRole,
  synthesize,
  writeLogsStatement,
} from './synthesize.js';

const EXISTING_QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:bookings';
const EXISTING_KEY_ARN =
  'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** The receiver's statements before its queue grant: write its own logs, read its own secret. */
function logsAndSecretStatements({ receiver, id }: Synthesized): unknown[] {
  return [
    writeLogsStatement(id(receiver.node.findChild('ReceiverLogs'))),
    {
      Effect: 'Allow',
      Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
      Resource: { Ref: id(receiver.secret) },
    },
  ];
}

describe('Class: WebhookReceiver', () => {
  // Four synths for the whole file (bundling off): with the consumer, FIFO with every option set,
  // the defaults (no consumer), and an existing KMS-encrypted queue.
  let standard: Synthesized;
  let fifo: Synthesized;
  let withoutConsumer: Synthesized;
  let existing: Synthesized;

  beforeAll(() => {
    standard = synthesize(() => ({ consumer: true }));
    fifo = synthesize((stack) => ({
      ingress: 'rest-api',
      fifo: true,
      consumer: true,
      secretJsonField: 'webhook_secret',
      tracing: true,
      alarmActions: [new SnsAction(new Topic(stack, 'OpsTopic'))],
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
      receiverMemorySize: 1024,
      secretCacheSeconds: 600,
      systemLogLevel: SystemLogLevel.INFO,
    }));
    withoutConsumer = synthesize(() => ({}));
    existing = synthesize((stack) => ({
      consumer: true,
      existingQueue: Queue.fromQueueAttributes(stack, 'Existing', {
        queueArn: EXISTING_QUEUE_ARN,
        keyArn: EXISTING_KEY_ARN,
      }),
    }));
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
        MemorySize: 192,
        Timeout: 15,
        // JSON, so that Lambda drops its own START/END/REPORT lines below WARN.
        LoggingConfig: {
          LogGroup: { Ref: id(logGroup) },
          LogFormat: 'JSON',
          SystemLogLevel: 'WARN',
        },
      });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('is configured through exactly the environment variables of the receiver contract', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: 'index.handler',
        MemorySize: 192,
        Environment: {
          Variables: {
            SECRET_ID: { Ref: id(receiver.secret) },
            QUEUE_URL: { Ref: id(receiver.queue) },
            SECRET_CACHE_SECONDS: '3600',
            SIGNATURE_TOLERANCE_SECONDS: '300',
            PREVIOUS_KEY_GRACE_SECONDS: '86400',
            FORWARD_EVENTS: 'event_booked',
            POWERTOOLS_SERVICE_NAME: Match.stringLikeRegexp('^webhook-receiver-[0-9a-f]{8}$'),
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
            SECRET_JSON_FIELD: 'webhook_secret',
            SECRET_CACHE_SECONDS: '600',
          }),
        },
        MemorySize: 1024,
        LoggingConfig: Match.objectLike({ LogFormat: 'JSON', SystemLogLevel: 'INFO' }),
      });
      fifo.template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    });

    it('may only write its logs, read its own secret and send to its own queue', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      expect(statementsOfRole(template, id(receiver.node.findChild('ReceiverRole')))).toEqual([
        ...logsAndSecretStatements(standard),
        {
          Effect: 'Allow',
          Action: 'sqs:SendMessage',
          Resource: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        },
      ]);
      expect(
        standard.resource(receiver.receiverFunction).Properties.Environment.Variables,
      ).not.toHaveProperty('SECRET_JSON_FIELD');
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

    it('warns at synth of an existing queue imported without its KMS key, naming the import that gives it', () => {
      // Prepare
      const { stack } = synthesize((scope) => ({
        existingQueue: Queue.fromQueueArn(scope, 'Existing', EXISTING_QUEUE_ARN),
      }));

      // Act
      const warnings = Annotations.fromStack(stack).findWarning('*', Match.anyValue());

      // Assess
      const texts = warnings.map(({ entry }) => String(entry.data));
      expect(texts).toContainEqual(
        expect.stringMatching(
          /existingQueue was imported without its KMS key.*Queue\.fromQueueAttributes\(\{ queueArn, keyArn \}\).*answers every call 503.*reads no message/,
        ),
      );
      expect(
        Annotations.fromStack(existing.stack).findWarning(
          '*',
          Match.stringLikeRegexp('existingQueue'),
        ),
      ).toEqual([]);
      expect(
        Annotations.fromStack(standard.stack).findWarning(
          '*',
          Match.stringLikeRegexp('existingQueue'),
        ),
      ).toEqual([]);
    });

    it('grants only SendMessage on an existing queue, and its KMS key through SQS', () => {
      // Prepare
      const { template, receiver, id } = existing;

      // Assess
      expect(statementsOfRole(template, id(receiver.node.findChild('ReceiverRole')))).toEqual([
        ...logsAndSecretStatements(existing),
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: EXISTING_QUEUE_ARN },
        {
          Effect: 'Allow',
          Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
          Resource: EXISTING_KEY_ARN,
          Condition: {
            StringEquals: {
              'kms:ViaService': {
                'Fn::Join': ['', ['sqs.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
              },
            },
          },
        },
      ]);
    });

    it('turns X-Ray tracing off by default and on with tracing', () => {
      expect(
        standard.resource(standard.receiver.receiverFunction).Properties.TracingConfig,
      ).toBeUndefined();
      expect(fifo.resource(fifo.receiver.receiverFunction).Properties.TracingConfig).toEqual({
        Mode: 'Active',
      });
      expect(fifo.resource(fifo.receiver.consumer).Properties.TracingConfig).toEqual({
        Mode: 'Active',
      });
    });

    it('grants no action on a wildcard resource in any variant without tracing', () => {
      for (const { template } of [standard, withoutConsumer, existing]) {
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

    it('encrypts both queues with SQS-managed keys, keeps messages 10 days (dead letters 14) and refuses plain HTTP', () => {
      // Prepare
      const { template, receiver, id, resource } = standard;

      // Assess
      template.resourceCountIs('AWS::SQS::Queue', 2);
      template.allResourcesProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
      const retention = (queue: unknown) =>
        resource(queue as never).Properties.MessageRetentionPeriod as number;
      expect(retention(receiver.queue)).toBe(10 * 86_400);
      // A moved message keeps its first enqueue time: the dead-letter queue keeps it 4 days longer.
      expect(retention(receiver.deadLetterQueue)).toBe(14 * 86_400);
      expect(
        retention(receiver.deadLetterQueue) - retention(receiver.queue),
      ).toBeGreaterThanOrEqual(4 * 86_400);
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

    it("encrypts the dead-letter queue with the queue's customer managed key, the one key CDK creates for encryption: KMS", () => {
      // Act
      const { template, receiver, id, resource } = synthesize(() => ({
        queueProps: { encryption: QueueEncryption.KMS },
      }));

      // Assess: a failed booking keeps the key its queue chose, not SQS-managed keys.
      template.resourceCountIs('AWS::KMS::Key', 1);
      const key = { 'Fn::GetAtt': [id(receiver.queue.encryptionMasterKey), 'Arn'] };
      for (const queue of [receiver.queue, receiver.deadLetterQueue]) {
        expect(resource(queue).Properties.KmsMasterKeyId).toEqual(key);
        expect(resource(queue).Properties.SqsManagedSseEnabled).toBeUndefined();
      }
    });

    it('encrypts the dead-letter queue with the key queueProps gives, unless deadLetterQueueProps chooses an encryption of its own', () => {
      // Act
      const given = synthesize((stack) => ({
        queueProps: {
          encryption: QueueEncryption.KMS,
          encryptionMasterKey: Key.fromKeyArn(stack, 'QueueKey', EXISTING_KEY_ARN),
          dataKeyReuse: Duration.hours(1),
        },
      }));
      const own = synthesize(() => ({
        queueProps: { encryption: QueueEncryption.KMS },
        deadLetterQueueProps: { encryption: QueueEncryption.SQS_MANAGED },
      }));

      // Assess
      given.template.resourceCountIs('AWS::KMS::Key', 0);
      expect(given.resource(given.receiver.deadLetterQueue).Properties).toMatchObject({
        KmsMasterKeyId: EXISTING_KEY_ARN,
        KmsDataKeyReusePeriodSeconds: 3600,
      });
      expect(own.resource(own.receiver.deadLetterQueue).Properties).toMatchObject({
        SqsManagedSseEnabled: true,
      });
      expect(own.resource(own.receiver.deadLetterQueue).Properties.KmsMasterKeyId).toBeUndefined();
    });

    it('encrypts both queues with a key queueProps gives without naming the encryption', () => {
      // Act
      const { resource, receiver } = synthesize((stack) => ({
        queueProps: { encryptionMasterKey: Key.fromKeyArn(stack, 'QueueKey', EXISTING_KEY_ARN) },
      }));

      // Assess
      for (const queue of [receiver.queue, receiver.deadLetterQueue]) {
        expect(resource(queue).Properties.KmsMasterKeyId).toBe(EXISTING_KEY_ARN);
        expect(resource(queue).Properties.SqsManagedSseEnabled).toBeUndefined();
      }
    });

    it('encrypts the dead-letter queue alone with a key deadLetterQueueProps gives without naming the encryption', () => {
      // Act
      const { resource, receiver } = synthesize((stack) => ({
        deadLetterQueueProps: {
          encryptionMasterKey: Key.fromKeyArn(stack, 'DeadLetterKey', EXISTING_KEY_ARN),
        },
      }));

      // Assess
      expect(resource(receiver.deadLetterQueue).Properties.KmsMasterKeyId).toBe(EXISTING_KEY_ARN);
      expect(resource(receiver.deadLetterQueue).Properties.SqsManagedSseEnabled).toBeUndefined();
      expect(resource(receiver.queue).Properties).toMatchObject({ SqsManagedSseEnabled: true });
    });

    it('warns when the dead-letter queue would keep messages no longer than the queue, whose enqueue time they keep', () => {
      // Act
      const warningsOf = (props: Partial<WebhookReceiverProps>) =>
        Annotations.fromStack(synthesize(() => props).stack).findWarning(
          '*',
          Match.stringLikeRegexp('dead letter may expire'),
        );

      // Assess
      expect(warningsOf({ queueProps: { retentionPeriod: Duration.days(14) } })).toHaveLength(1);
      expect(
        warningsOf({ deadLetterQueueProps: { retentionPeriod: Duration.days(10) } }),
      ).toHaveLength(1);
      expect(warningsOf({ queueProps: { retentionPeriod: Duration.days(13) } })).toEqual([]);
      expect(
        Annotations.fromStack(standard.stack).findWarning(
          '*',
          Match.stringLikeRegexp('dead letter'),
        ),
      ).toEqual([]);
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
      const consumer = template.toJSON().Resources[id(receiver.consumer)];
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
      expect(fifo.receiver.secret?.secretArn).toBe(IMPORTED_SECRET_ARN);
    });

    it("lets the receiver decrypt an imported secret's customer managed key, through Secrets Manager in the stack's region only", () => {
      // Prepare: a key imported by ARN, whose key policy the stack cannot change.
      const synthesized = synthesize((stack) => ({
        secret: Secret.fromSecretAttributes(stack, 'Imported', {
          secretCompleteArn: IMPORTED_SECRET_ARN,
          encryptionKey: Key.fromKeyArn(stack, 'SecretKey', EXISTING_KEY_ARN),
        }),
      }));
      const { template, receiver, id } = synthesized;

      // Assess
      expect(
        statementsOfRole(template, id(receiver.node.findChild('ReceiverRole'))),
      ).toContainEqual({
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: EXISTING_KEY_ARN,
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
          },
        },
      });
    });
  });

  describe('Consumer', () => {
    it('consumes the queue in batches of 10 within 1 s, reporting partial batch failures', () => {
      // Prepare
      const { template, receiver, id } = standard;

      // Assess
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] },
        FunctionName: { Ref: id(receiver.consumer) },
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 256,
        Timeout: 30,
        LoggingConfig: Match.objectLike({ LogFormat: 'JSON', SystemLogLevel: 'WARN' }),
        Environment: {
          Variables: {
            POWERTOOLS_SERVICE_NAME: Match.stringLikeRegexp(
              '^webhook-receiver-[0-9a-f]{8}-consumer$',
            ),
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

    it('consumes an existing queue, with the batch size and window of the props', () => {
      // Prepare
      const { receiver, id } = synthesize((stack) => ({
        consumer: true,
        consumerBatchSize: 100,
        consumerMaxBatchingWindow: Duration.seconds(20),
        existingQueue: Queue.fromQueueArn(stack, 'Existing', EXISTING_QUEUE_ARN),
      }));
      const template = Template.fromStack(receiver.node.scope as Stack);

      // Assess
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: EXISTING_QUEUE_ARN,
        FunctionName: { Ref: id(receiver.consumer) },
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 20,
      });
    });

    it('merges queueProps and deadLetterQueueProps over the defaults, with a visibility timeout that follows the window', () => {
      // Prepare
      const { receiver, resource } = synthesize(() => ({
        consumerMaxBatchingWindow: Duration.seconds(10),
        queueProps: { retentionPeriod: Duration.days(4) },
        deadLetterQueueProps: { queueName: 'booking-hooks-dlq' },
      }));

      // Assess
      expect(resource(receiver.queue).Properties).toMatchObject({
        MessageRetentionPeriod: 4 * 86_400,
        VisibilityTimeout: 6 * 30 + 10,
        SqsManagedSseEnabled: true,
      });
      expect(resource(receiver.deadLetterQueue).Properties).toMatchObject({
        QueueName: 'booking-hooks-dlq',
        MessageRetentionPeriod: 14 * 86_400,
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

  describe('Idempotency', () => {
    let idempotent: Synthesized;

    beforeAll(() => {
      idempotent = synthesize(() => ({ consumer: true, idempotency: true }));
    });

    it('creates an on-demand table with TTL on the records, PITR and the AWS managed key, removed like the queue', () => {
      // Prepare
      const { template, receiver, id } = idempotent;

      // Assess
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Delete',
        UpdateReplacePolicy: 'Delete',
        Properties: {
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
          TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
        },
      });
      expect(template.toJSON().Resources[id(receiver.queue)].DeletionPolicy).toBe('Delete');
    });

    it('grants the consumer only item-level actions on that table, beside its queue and logs', () => {
      // Prepare
      const { template, receiver, id } = idempotent;
      const role = receiver.node.findChild('ConsumerRole');

      // Assess
      expect(statementsOfRole(template, id(role))).toEqual([
        writeLogsStatement(id(receiver.node.findChild('ConsumerLogs'))),
        idempotencyRecordsStatement({ 'Fn::GetAtt': [id(receiver.idempotencyTable), 'Arn'] }),
        expect.objectContaining({ Resource: { 'Fn::GetAtt': [id(receiver.queue), 'Arn'] } }),
      ]);
    });

    it('tells the consumer the table and a TTL of 7 days', () => {
      // Prepare
      const { receiver, resource, id } = idempotent;

      // Assess
      expect(resource(receiver.consumer).Properties.Environment.Variables).toMatchObject({
        IDEMPOTENCY_TABLE: { Ref: id(receiver.idempotencyTable) },
        IDEMPOTENCY_TTL_SECONDS: '604800',
      });
    });

    it('takes idempotencyTtl and idempotencyTableRemovalPolicy', () => {
      // Act
      const { receiver, template, resource } = synthesize(() => ({
        consumer: true,
        idempotency: true,
        idempotencyTtl: Duration.days(2),
        idempotencyTableRemovalPolicy: RemovalPolicy.RETAIN,
      }));

      // Assess
      expect(resource(receiver.consumer).Properties.Environment.Variables).toMatchObject({
        IDEMPOTENCY_TTL_SECONDS: '172800',
      });
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });

    it('creates no table and tells the consumer none by default', () => {
      // Prepare
      const { template, receiver, resource } = standard;

      // Assess
      expect(receiver.idempotencyTable).toBeUndefined();
      template.resourceCountIs('AWS::DynamoDB::Table', 0);
      expect(resource(receiver.consumer).Properties.Environment.Variables).not.toHaveProperty(
        'IDEMPOTENCY_TABLE',
      );
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
        name: 'front door 5xx',
        key: 'apiServerErrors',
        properties: {
          Namespace: 'AWS/ApiGateway',
          MetricName: '5xx',
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
          Statistic: 'Sum',
          Period: 300,
          Threshold: 9,
        },
      },
      {
        name: 'any key-load failure in 5 minutes (calls answered 503)',
        key: 'keyLoadFailures',
        properties: {
          Namespace: 'ServiceWebhookReceiver',
          MetricName: 'KeyLoadFailure',
          Statistic: 'Sum',
          Period: 300,
          Threshold: 0,
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
        resources[id(receiver.receiverFunction)].Properties.Environment.Variables;
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

      // Assess: the template's filters on the receiver log group count the line it wrote.
      const logGroup = receiver.receiverFunction.logGroup.node.defaultChild as CfnElement;
      const filters = templateMetricFilters(
        template.toJSON() as CfnTemplate,
        fifo.stack.getLogicalId(logGroup),
      );
      expect(response.statusCode).toBe(401);
      expect(filteredDataPoints(filters, output.text().split('\n'))).toContainEqual({
        namespace: alarm.Namespace,
        name: alarm.MetricName,
        value: 1,
        dimensions: { service: 'bookings-receiver' },
      });
      expect(alarm.Dimensions).toEqual([{ Name: 'service', Value: 'bookings-receiver' }]);
    });

    it('watches the receiver, the API and the right queue', () => {
      // Prepare
      const { template, receiver, id } = standard;
      const dimensionsOf = (key: Exclude<keyof WebhookReceiver['alarms'], 'silence'>) =>
        template.toJSON().Resources[id(receiver.alarms[key])].Properties.Dimensions;

      // Assess
      expect(dimensionsOf('deadLetterQueueNotEmpty')).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [id(receiver.deadLetterQueue), 'QueueName'] } },
      ]);
      expect(dimensionsOf('oldestMessageAge')).toEqual([
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [id(receiver.queue), 'QueueName'] } },
      ]);
      expect(dimensionsOf('receiverErrors')).toEqual([
        { Name: 'FunctionName', Value: { Ref: id(receiver.receiverFunction) } },
      ]);
      expect(dimensionsOf('apiServerErrors')).toEqual([
        { Name: 'ApiId', Value: { Ref: id(receiver.api) } },
      ]);
      const serviceName =
        template.toJSON().Resources[id(receiver.receiverFunction)].Properties.Environment.Variables
          .POWERTOOLS_SERVICE_NAME;
      for (const key of ['signatureRejections', 'keyLoadFailures'] as const) {
        expect(dimensionsOf(key)).toEqual([{ Name: 'service', Value: serviceName }]);
      }
    });

    it('watches an existing queue and creates no dead-letter queue alarm for it', () => {
      // Prepare
      const { template, receiver, resource } = existing;

      // Assess
      template.resourceCountIs('AWS::SQS::Queue', 0);
      expect(receiver.deadLetterQueue).toBeUndefined();
      expect(receiver.alarms.deadLetterQueueNotEmpty).toBeUndefined();
      expect(resource(receiver.alarms.oldestMessageAge).Properties.Dimensions).toEqual([
        { Name: 'QueueName', Value: 'bookings' },
      ]);
      template.resourceCountIs('AWS::CloudWatch::Alarm', 8);
    });

    it('creates nine alarms with no actions and no topic when no e-mail is given', () => {
      standard.template.resourceCountIs('AWS::CloudWatch::Alarm', 9);
      standard.template.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: Match.absent(),
      });
      standard.template.resourceCountIs('AWS::SNS::Topic', 0);
      expect(standard.receiver.alarmTopic).toBeUndefined();
    });

    it('notifies alarmActions and an SSL-only topic with the e-mail subscribed when alarmEmail is set', () => {
      // Prepare
      const { template, receiver, id } = fifo;
      const topicId = id(receiver.alarmTopic);
      const opsTopicId = id(fifo.stack.node.findChild('OpsTopic'));

      // Assess
      template.resourceCountIs('AWS::CloudWatch::Alarm', 9);
      template.allResourcesProperties('AWS::CloudWatch::Alarm', {
        AlarmActions: [{ Ref: opsTopicId }, { Ref: topicId }],
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
      const propertiesOf = (key: Exclude<keyof WebhookReceiver['alarms'], 'silence'>) =>
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
      ['no event types', { forwardEvents: [] }, /forwardEvents \(FORWARD_EVENTS\) must name/],
      [
        '* mixed with event types, which the receiver refuses at cold start',
        { forwardEvents: ['*', 'event_booked'] },
        /forwardEvents \(FORWARD_EVENTS\) must be '\*' alone/,
      ],
      ['an event type with a comma', { forwardEvents: ['a,b'] }, /"a,b"/],
      ['an empty event type', { forwardEvents: [''] }, /forwardEvents \(FORWARD_EVENTS\) entry ""/],
      ['a rate limit of 0', { throttleRateLimit: 0 }, /throttleRateLimit/],
      ['a burst limit of 0', { throttleBurstLimit: 0 }, /throttleBurstLimit/],
      ['an address without @', { alarmEmail: 'ops.example.com' }, /alarmEmail/],
      ['an empty service name', { serviceName: ' ' }, /serviceName/],
      ['a rejection threshold of 0', { signatureRejectionAlarmThreshold: 0 }, /signatureRejection/],
      [
        'an unknown ingress',
        { ingress: 'alb' as never },
        /ingress must be one of http-api, rest-api, function-url, got "alb"/,
      ],
      ['an empty secretJsonField', { secretJsonField: ' ' }, /secretJsonField/],
      ['a batch of 11 on a FIFO queue', { fifo: true, consumerBatchSize: 11 }, /from 1 to 10/],
      ['a reserved concurrency of 0', { reservedConcurrency: 0 }, /reservedConcurrency/],
      ["a receiver memory below Lambda's 128 MB", { receiverMemorySize: 64 }, /receiverMemorySize/],
      [
        'receiverMemorySize beside receiverFunctionProps.memorySize',
        { receiverMemorySize: 256, receiverFunctionProps: { memorySize: 512 } },
        /receiverMemorySize cannot be used with receiverFunctionProps.memorySize/,
      ],
      [
        'systemLogLevel beside receiverFunctionProps.loggingFormat',
        {
          systemLogLevel: SystemLogLevel.INFO,
          receiverFunctionProps: { loggingFormat: LoggingFormat.TEXT },
        },
        /systemLogLevel cannot be used with receiverFunctionProps.loggingFormat/,
      ],
      [
        'reservedConcurrency beside receiverFunctionProps.reservedConcurrentExecutions',
        { reservedConcurrency: 5, receiverFunctionProps: { reservedConcurrentExecutions: 50 } },
        /^reservedConcurrency cannot be used with receiverFunctionProps\.reservedConcurrentExecutions: give the receiver's setting once$/,
      ],
      [
        'tracing beside receiverFunctionProps.tracing',
        { tracing: true, receiverFunctionProps: { tracing: Tracing.PASS_THROUGH } },
        /^tracing cannot be used with receiverFunctionProps\.tracing: give the receiver's setting once$/,
      ],
      [
        'queueProps.fifo beside the default fifo, which would make a FIFO queue with a standard dead-letter queue',
        { queueProps: { fifo: true } },
        /^queueProps\.fifo is true but fifo is false \(the default\): the queue and its dead-letter queue must be of one type; set fifo alone$/,
      ],
      [
        'queueProps.fifo false beside fifo: true',
        { fifo: true, queueProps: { fifo: false } },
        /^queueProps\.fifo is false but fifo is true: /,
      ],
      [
        'deadLetterQueueProps.fifo beside fifo: false',
        { fifo: false, deadLetterQueueProps: { fifo: true } },
        /^deadLetterQueueProps\.fifo is true but fifo is false: /,
      ],
      [
        "queueProps.deadLetterQueue, which would leave the construct's dead-letter queue and its alarm unused",
        {
          queueProps: {
            deadLetterQueue: {
              queue: Queue.fromQueueArn(
                new Stack(templateTestApp(), 'OwnDeadLettersStack'),
                'OwnDeadLetters',
                EXISTING_QUEUE_ARN,
              ),
              maxReceiveCount: 3,
            },
          },
        },
        /^queueProps\.deadLetterQueue cannot be used: .*shape it with deadLetterQueueProps$/,
      ],
      [
        "a visibility timeout under the example consumer's timeout, whose event source mapping Lambda refuses",
        { consumer: true, queueProps: { visibilityTimeout: Duration.seconds(29) } },
        /^queueProps\.visibilityTimeout of 29 s is shorter than the example consumer's timeout \(30 s\): Lambda refuses its event source mapping at deploy/,
      ],
      [
        'a batching window on a FIFO queue',
        { fifo: true, consumerMaxBatchingWindow: Duration.seconds(5) },
        /consumerMaxBatchingWindow/,
      ],
      [
        'idempotency without the example consumer',
        { idempotency: true },
        /idempotency needs consumer: true/,
      ],
      [
        'idempotencyTtl without idempotency',
        { consumer: true, idempotencyTtl: Duration.days(1) },
        /idempotencyTtl needs idempotency: true/,
      ],
      [
        'a message age below a minute',
        { messageAgeAlarmThreshold: Duration.seconds(30) },
        /messageAgeAlarmThreshold/,
      ],
      ['an empty endpoint name', { endpoints: [{ name: '' }] }, /endpoint name "" is not 1 to 32/],
      ['an endpoint name in upper case', { endpoints: [{ name: 'EU' }] }, /endpoint name "EU"/],
      [
        'an endpoint name with an underscore',
        { endpoints: [{ name: 'eu_west' }] },
        /endpoint name "eu_west"/,
      ],
      ['an endpoint name with a slash', { endpoints: [{ name: 'eu/1' }] }, /endpoint name "eu\/1"/],
      [
        'an endpoint name of 33 characters',
        { endpoints: [{ name: 'e'.repeat(33) }] },
        /"e{33}" is not 1 to 32/,
      ],
      [
        'an endpoint name given twice',
        { endpoints: [{ name: 'eu' }, { name: 'us' }, { name: 'eu' }] },
        /endpoint name "eu" is given twice/,
      ],
      [
        'two endpoint names alike in PascalCase',
        { endpoints: [{ name: 'a-1' }, { name: 'a1' }] },
        /endpoint names "a-1" and "a1" are both A1/,
      ],
      ['an empty endpoints list', { endpoints: [] }, /endpoints must name at least one endpoint/],
      [
        "an empty endpoint's secretJsonField",
        { endpoints: [{ name: 'eu', secretJsonField: ' ' }] },
        /secretJsonField of endpoint "eu" must be non-empty text/,
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

    it.each([
      [
        { contentBasedDeduplication: true },
        /Content-based deduplication can only be defined for FIFO queues/,
      ],
      [{ queueName: 'bookings.fifo' }, /Non-FIFO queue name may not end in '\.fifo'/],
    ])(
      'refuses a FIFO-only queue setting on a standard receiver instead of making one of its queues FIFO (%o)',
      (queueProps, message) => {
        // Act
        const build = () =>
          new WebhookReceiver(new Stack(templateTestApp(), 'InvalidStack'), 'Receiver', {
            queueProps,
          });

        // Assess
        expect(build).toThrow(message);
      },
    );

    it("accepts queue props that agree with the props: fifo given twice alike, a visibility timeout of the consumer's timeout, a shorter one without the example consumer", () => {
      // Act
      const fifoTwice = synthesize(() => ({
        fifo: true,
        queueProps: { fifo: true },
        deadLetterQueueProps: { fifo: true },
      }));
      const { receiver, resource } = synthesize(() => ({
        consumer: true,
        queueProps: { visibilityTimeout: Duration.seconds(30) },
      }));
      const withoutConsumer = synthesize(() => ({
        queueProps: { visibilityTimeout: Duration.seconds(5) },
      }));

      // Assess
      fifoTwice.template.allResourcesProperties('AWS::SQS::Queue', { FifoQueue: true });
      expect(resource(receiver.queue).Properties.VisibilityTimeout).toBe(30);
      expect(
        withoutConsumer.resource(withoutConsumer.receiver.queue).Properties.VisibilityTimeout,
      ).toBe(5);
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

  describe('Two receivers in one stack', () => {
    let stack: Stack;
    let first: WebhookReceiver;
    let second: WebhookReceiver;
    let template: Template;

    beforeAll(() => {
      stack = new Stack(templateTestApp(), 'TwoReceivers');
      first = new WebhookReceiver(stack, 'Bookings', { ingress: 'rest-api' });
      second = new WebhookReceiver(stack, 'Cancellations', { ingress: 'rest-api' });
      template = Template.fromStack(stack);
    });

    it('synthesize side by side with one API Gateway account setting', () => {
      template.resourceCountIs('AWS::ApiGateway::RestApi', 2);
      template.resourceCountIs('AWS::ApiGateway::Account', 1);
      template.resourceCountIs('AWS::CloudWatch::Alarm', 18);
    });

    it('never share an alarm name, an API name or a metric dimension', () => {
      // Prepare
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
        (alarm) => alarm.Properties,
      );
      const apiNames = Object.values(template.findResources('AWS::ApiGateway::RestApi')).map(
        (api) => api.Properties.Name,
      );

      // Assess: CloudFormation names each alarm uniquely when AlarmName is absent.
      expect(alarms.filter((alarm) => alarm.AlarmName !== undefined)).toEqual([]);
      expect(new Set(apiNames).size).toBe(2);
      const watched = alarms.map((alarm) =>
        JSON.stringify([alarm.Namespace, alarm.MetricName, alarm.Dimensions]),
      );
      expect(new Set(watched).size).toBe(18);
      const serviceNames = [first, second].map(
        (receiver) =>
          template.toJSON().Resources[
            stack.getLogicalId(receiver.receiverFunction.node.defaultChild as CfnElement)
          ].Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME,
      );
      expect(new Set(serviceNames).size).toBe(2);
    });
  });
});
