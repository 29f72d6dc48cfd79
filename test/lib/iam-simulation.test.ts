import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Template as CdkTemplate } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ReceiverStack } from '../../lib/receiver-stack.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { DEFAULT_KEY_POLICY } from '../support/deployed-template.js';
import { simulate } from '../support/iam-simulator.js';
import { appProps, SKIP_BUNDLING } from './cdk-app.js';
import { deployedValue } from './deployed-value.js';

// The IAM policy simulator (test/support/iam-simulator.ts) evaluates the template's policies as deployed, for the calls that customer managed keys need.

const ACCOUNT = '123456789012';
const REGION = 'eu-west-1';
const KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:booking-webhook-key-AbC123`;
const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:bookings`;
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/Receiver`;

/** Every policy attached to one of the construct's roles (the receiver's), inline and managed, as deployed. */
function receiverPolicies(
  stack: Stack,
  receiver: WebhookReceiver,
  template: Template,
  role: 'ReceiverRole' | 'ConsumerRole' | 'ArchiveDeliveryRole' = 'ReceiverRole',
) {
  const roleId = stack.getLogicalId(receiver.node.findChild(role).node.defaultChild as never);
  const physical = (logicalId: string) =>
    ({
      'AWS::Region': REGION,
      'AWS::Partition': 'aws',
      'AWS::AccountId': ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
    })[logicalId] ?? `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${logicalId}-AbC123`;
  return ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy'].flatMap((type) =>
    Object.entries(template.findResources(type, { Properties: { Roles: [{ Ref: roleId }] } })).map(
      ([name, policy]) => ({
        name,
        policy: deployedValue(policy.Properties.PolicyDocument, physical),
      }),
    ),
  );
}

/** The simulator's verdict on the role calling `action` on `resource`. */
function decide(
  policies: ReturnType<typeof receiverPolicies>,
  action: string,
  resource: string,
  context: Record<string, string> = {},
  resourcePolicy?: unknown,
): Promise<string> {
  return simulate({ principal: ROLE_ARN, action, resource, context }, policies, resourcePolicy);
}

describe('IAM simulation: customer managed keys', () => {
  const variants = {} as Record<
    'construct' | 'context' | 'endpoint' | 'queueKey' | 'queueKeyConsumer' | 'archiveKey',
    ReturnType<typeof receiverPolicies>
  >;

  beforeAll(() => {
    const build = (
      make: (stack: Stack) => WebhookReceiver,
      stack: Stack,
      role: 'ReceiverRole' | 'ConsumerRole' = 'ReceiverRole',
    ) => {
      const receiver = make(stack);
      return receiverPolicies(stack, receiver, CdkTemplate.fromStack(stack), role);
    };
    variants.construct = build(
      (stack) =>
        new WebhookReceiver(stack, 'Receiver', {
          secret: Secret.fromSecretAttributes(stack, 'Imported', {
            secretCompleteArn: SECRET_ARN,
            encryptionKey: Key.fromKeyArn(stack, 'SecretKey', KEY_ARN),
          }),
        }),
      new Stack(new App(appProps(SKIP_BUNDLING)), 'Construct'),
    );
    const withQueueKey = (consumer: boolean) => (stack: Stack) =>
      new WebhookReceiver(stack, 'Receiver', {
        existingQueue: Queue.fromQueueAttributes(stack, 'Existing', {
          queueArn: QUEUE_ARN,
          keyArn: KEY_ARN,
        }),
        consumer,
      });
    variants.queueKey = build(
      withQueueKey(false),
      new Stack(new App(appProps(SKIP_BUNDLING)), 'QueueKey'),
    );
    variants.queueKeyConsumer = build(
      withQueueKey(true),
      new Stack(new App(appProps(SKIP_BUNDLING)), 'QueueKeyConsumer'),
      'ConsumerRole',
    );
    const context = new ReceiverStack(new App(appProps(SKIP_BUNDLING)), 'Context', {
      secretArn: SECRET_ARN,
      secretKmsKeyArn: KEY_ARN,
    });
    variants.context = receiverPolicies(context, context.receiver, CdkTemplate.fromStack(context));
    const endpoint = new ReceiverStack(new App(appProps(SKIP_BUNDLING)), 'Endpoint', {
      endpoints: [{ name: 'eu', secretArn: SECRET_ARN, secretKmsKeyArn: KEY_ARN }, { name: 'us' }],
    });
    variants.endpoint = receiverPolicies(
      endpoint,
      endpoint.receiver,
      CdkTemplate.fromStack(endpoint),
    );
    const archiveKey = new ReceiverStack(new App(appProps(SKIP_BUNDLING)), 'ArchiveKey', {
      archiveKmsKeyArn: KEY_ARN,
    });
    variants.archiveKey = receiverPolicies(
      archiveKey,
      archiveKey.receiver,
      CdkTemplate.fromStack(archiveKey),
      'ArchiveDeliveryRole',
    );
  }, 60_000);

  it("lets Firehose use the archive bucket's key through S3 in the stack's region only (archiveKmsKeyArn)", async () => {
    // Act
    const verdicts = await Promise.all(
      [
        ['kms:GenerateDataKey', `s3.${REGION}.amazonaws.com`],
        ['kms:Decrypt', `s3.${REGION}.amazonaws.com`],
        ['kms:GenerateDataKey', undefined],
        ['kms:Decrypt', 's3.us-east-1.amazonaws.com'],
        ['kms:Decrypt', `sqs.${REGION}.amazonaws.com`],
        ['kms:Encrypt', `s3.${REGION}.amazonaws.com`],
      ].map(([action, viaService]) =>
        decide(
          variants.archiveKey,
          action as string,
          KEY_ARN,
          viaService === undefined ? {} : { 'kms:ViaService': viaService },
          DEFAULT_KEY_POLICY,
        ),
      ),
    );

    // Assess: the two calls S3 makes for Firehose's writes and read-backs, nothing else
    expect(verdicts).toEqual([
      'Allowed',
      'Allowed',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
    ]);
  });

  it.each(['construct', 'context', 'endpoint'] as const)(
    "allows kms:Decrypt on the secret's key through Secrets Manager in the stack's region only (%s)",
    async (variant) => {
      // Act
      const viaSecretsManager = await decide(
        variants[variant],
        'kms:Decrypt',
        KEY_ARN,
        { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` },
        DEFAULT_KEY_POLICY,
      );
      const direct = await decide(
        variants[variant],
        'kms:Decrypt',
        KEY_ARN,
        {},
        DEFAULT_KEY_POLICY,
      );
      const read = await decide(variants[variant], 'secretsmanager:GetSecretValue', SECRET_ARN);
      const other = await decide(
        variants[variant],
        'secretsmanager:GetSecretValue',
        `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:other-key-XyZ789`,
      );

      // Assess
      expect([viaSecretsManager, direct, read, other]).toEqual([
        'Allowed',
        'ImplicitlyDenied',
        'Allowed',
        'ImplicitlyDenied',
      ]);
    },
  );

  it("lets the consumer decrypt with the queue's key through SQS in the stack's region only, the event source's grant notwithstanding", async () => {
    // Act
    const results = await Promise.all([
      decide(variants.queueKeyConsumer, 'sqs:ReceiveMessage', QUEUE_ARN),
      decide(
        variants.queueKeyConsumer,
        'kms:Decrypt',
        KEY_ARN,
        { 'kms:ViaService': `sqs.${REGION}.amazonaws.com` },
        DEFAULT_KEY_POLICY,
      ),
      decide(variants.queueKeyConsumer, 'kms:Decrypt', KEY_ARN, {}, DEFAULT_KEY_POLICY),
      decide(
        variants.queueKeyConsumer,
        'kms:Decrypt',
        KEY_ARN,
        { 'kms:ViaService': `secretsmanager.${REGION}.amazonaws.com` },
        DEFAULT_KEY_POLICY,
      ),
    ]);

    // Assess
    expect(results).toEqual(['Allowed', 'Allowed', 'ExplicitlyDenied', 'ExplicitlyDenied']);
  });

  it("allows the receiver SendMessage and the queue key's actions through SQS in the stack's region only on an existing queue imported with its key, and no ReceiveMessage", async () => {
    // Prepare
    const throughSqs = { 'kms:ViaService': `sqs.${REGION}.amazonaws.com` };
    const throughOtherRegion = { 'kms:ViaService': 'sqs.eu-north-1.amazonaws.com' };

    // Act
    const results = await Promise.all([
      decide(variants.queueKey, 'sqs:SendMessage', QUEUE_ARN),
      decide(variants.queueKey, 'kms:GenerateDataKey', KEY_ARN, throughSqs, DEFAULT_KEY_POLICY),
      decide(variants.queueKey, 'kms:Decrypt', KEY_ARN, throughSqs, DEFAULT_KEY_POLICY),
      decide(variants.queueKey, 'kms:Decrypt', KEY_ARN, {}, DEFAULT_KEY_POLICY),
      decide(variants.queueKey, 'kms:Decrypt', KEY_ARN, throughOtherRegion, DEFAULT_KEY_POLICY),
      decide(variants.queueKey, 'sqs:ReceiveMessage', QUEUE_ARN),
    ]);

    // Assess
    expect(results).toEqual([
      'Allowed',
      'Allowed',
      'Allowed',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
      'ImplicitlyDenied',
    ]);
  });
});
