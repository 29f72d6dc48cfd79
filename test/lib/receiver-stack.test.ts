import { type CfnElement, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidReceiverStackPropsError, ReceiverStack } from '../../lib/receiver-stack.js';
import { templateTestApp } from './cdk-app.js';

const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:booking-webhook-key-AbC123';
const KMS_KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('Class: ReceiverStack', () => {
  let created: ReceiverStack;
  let imported: ReceiverStack;
  let endpoints: ReceiverStack;

  beforeAll(() => {
    endpoints = new ReceiverStack(templateTestApp(), 'Endpoints', {
      ingress: 'function-url',
      endpoints: [{ name: 'eu', secretArn: SECRET_ARN }, { name: 'eu-west' }],
    });
    created = new ReceiverStack(templateTestApp(), 'Created', { ingress: 'rest-api' });
    imported = new ReceiverStack(templateTestApp(), 'Imported', {
      secretArn: SECRET_ARN,
      fifo: true,
    });
  });

  it("outputs the webhook URL, the queue URL and ARN, the dead-letter queue URL, the idempotency table name, the archive bucket, the secret ARN and the consumer's log group", () => {
    // Prepare
    const { receiver } = created;
    const id = (construct: { node: { defaultChild?: unknown } } | undefined) =>
      created.getLogicalId(construct?.node.defaultChild as CfnElement);

    // Act
    const outputs = Template.fromStack(created).findOutputs('*');

    // Assess
    expect(Object.keys(outputs).sort()).toEqual([
      'ArchiveBucketName',
      'ConsumerLogGroupName',
      'DeadLetterQueueUrl',
      'IdempotencyTableName',
      'QueueArn',
      'QueueUrl',
      'SecretArn',
      'WebhookUrl',
    ]);
    expect(outputs.WebhookUrl?.Value['Fn::Join'][1].at(-1)).toBe('/webhook');
    expect(outputs.QueueUrl?.Value).toEqual({ Ref: id(receiver.queue) });
    expect(outputs.QueueArn?.Value).toEqual({ 'Fn::GetAtt': [id(receiver.queue), 'Arn'] });
    expect(outputs.DeadLetterQueueUrl?.Value).toEqual({ Ref: id(receiver.deadLetterQueue) });
    expect(outputs.IdempotencyTableName?.Value).toEqual({ Ref: id(receiver.idempotencyTable) });
    expect(outputs.SecretArn?.Value).toEqual({ Ref: id(receiver.secret) });
    expect(outputs.ConsumerLogGroupName?.Value).toEqual({ Ref: id(receiver.consumer?.logGroup) });
  });

  it("outputs the example consumer's log group only when the stack deploys the consumer", () => {
    // Act
    const withoutConsumer = new ReceiverStack(templateTestApp(), 'NoConsumer', { consumer: false });

    // Assess
    const outputs = Template.fromStack(withoutConsumer).findOutputs('*');
    expect(Object.keys(outputs)).not.toContain('ConsumerLogGroupName');
    expect(Object.keys(outputs)).toContain('QueueUrl');
  });

  it('deploys the idempotency table with the example consumer unless idempotency is false', () => {
    // Act
    const off = new ReceiverStack(templateTestApp(), 'NoIdempotency', { idempotency: false });
    const withoutConsumer = new ReceiverStack(templateTestApp(), 'NoTable', { consumer: false });

    // Assess
    Template.fromStack(created).resourceCountIs('AWS::DynamoDB::Table', 1);
    for (const stack of [off, withoutConsumer]) {
      const template = Template.fromStack(stack);
      template.resourceCountIs('AWS::DynamoDB::Table', 0);
      expect(Object.keys(template.findOutputs('IdempotencyTableName'))).toEqual([]);
    }
  });

  it('refuses idempotency without the example consumer', () => {
    // Act
    const build = () =>
      new ReceiverStack(templateTestApp(), 'Invalid', { consumer: false, idempotency: true });

    // Assess
    expect(build).toThrow(/idempotency needs consumer: true/);
  });

  it('deploys the example consumer unless consumer is false', () => {
    Template.fromStack(created).resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    const without = new ReceiverStack(templateTestApp(), 'NoConsumer', { consumer: false });
    Template.fromStack(without).resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
  });

  it('acknowledges no cdk-nag finding itself: every acknowledgement sits inside the construct', () => {
    // Act
    const acknowledging = created.node
      .findAll()
      .filter((construct) =>
        construct.node.metadata.some(
          (entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY,
        ),
      )
      .map((construct) => construct.node.path);

    // Assess
    expect(acknowledging.length).toBeGreaterThan(0);
    for (const path of acknowledging) {
      expect(path.startsWith('Created/WebhookReceiver/')).toBe(true);
    }
  });

  it('imports the secret by its complete ARN instead of creating one', () => {
    // Act
    const template = Template.fromStack(imported);

    // Assess
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(template.findOutputs('SecretArn').SecretArn?.Value).toBe(SECRET_ARN);
    template.allResourcesProperties('AWS::SQS::Queue', { FifoQueue: true });
  });

  it.each([
    ['secretKmsKeyArn', { secretArn: SECRET_ARN, secretKmsKeyArn: KMS_KEY_ARN }],
    [
      'secretKmsKeyArn.<name>',
      { endpoints: [{ name: 'eu', secretArn: SECRET_ARN, secretKmsKeyArn: KMS_KEY_ARN }] },
    ],
  ])(
    "lets the receiver decrypt the secret's key of %s through Secrets Manager only",
    (_key, props) => {
      // Act
      const stack = new ReceiverStack(templateTestApp(), 'CustomerKey', props);
      const template = Template.fromStack(stack);
      const statements = ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']
        .flatMap((type) => Object.values(template.findResources(type)))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement);

      // Assess
      expect(statements).toContainEqual({
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: KMS_KEY_ARN,
        Condition: {
          StringEquals: {
            'kms:ViaService': {
              'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
            },
          },
        },
      });
    },
  );

  it('outputs WebhookUrl<Name> and SecretArn<Name> per endpoint, and no single URL or secret', () => {
    // Prepare
    const [eu, euWest] = endpoints.receiver.endpoints;

    // Act
    const outputs = Template.fromStack(endpoints).findOutputs('*');

    // Assess
    expect(Object.keys(outputs).sort()).toEqual([
      'ArchiveBucketName',
      'ConsumerLogGroupName',
      'DeadLetterQueueUrl',
      'IdempotencyTableName',
      'QueueArn',
      'QueueUrl',
      'SecretArnEu',
      'SecretArnEuWest',
      'WebhookUrlEu',
      'WebhookUrlEuWest',
    ]);
    expect(outputs.WebhookUrlEu?.Value['Fn::Join'][1].at(-1)).toBe('webhook/eu');
    expect(outputs.WebhookUrlEuWest?.Value['Fn::Join'][1].at(-1)).toBe('webhook/eu-west');
    expect(outputs.WebhookUrlEuWest?.Description).toBe(
      'Register this URL of endpoint eu-west with the booking service',
    );
    expect(outputs.SecretArnEu?.Value).toBe(SECRET_ARN);
    expect(eu?.secret.secretArn).toBe(SECRET_ARN);
    expect(outputs.SecretArnEuWest?.Value).toEqual({
      Ref: endpoints.getLogicalId(euWest?.secret.node.defaultChild as CfnElement),
    });
  });

  it.each([
    [
      'secretArn together with endpoints',
      { secretArn: SECRET_ARN, endpoints: [{ name: 'eu' }] },
      /secretArn cannot be used with endpoints.*secretArn\.<name>/,
    ],
    [
      'secretKmsKeyArn without secretArn',
      { secretKmsKeyArn: KMS_KEY_ARN },
      /secretKmsKeyArn needs secretArn: the key encrypts a secret you give by ARN/,
    ],
    [
      "an endpoint's secretKmsKeyArn without its secretArn, naming its context keys",
      { endpoints: [{ name: 'eu', secretKmsKeyArn: KMS_KEY_ARN }] },
      /secretKmsKeyArn\.eu needs secretArn\.eu/,
    ],
    [
      'a key alias as secretKmsKeyArn',
      { secretArn: SECRET_ARN, secretKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:alias/hooks' },
      /secretKmsKeyArn must be a KMS key ARN .*, got "arn:aws:kms:eu-west-1:123456789012:alias\/hooks"$/,
    ],
    [
      "an endpoint's secretArn that is not a complete ARN, naming its context key",
      { endpoints: [{ name: 'us', secretArn: 'webhook/us' }] },
      /secretArn\.us must be a complete Secrets Manager secret ARN .*, got "webhook\/us"$/,
    ],
  ] as const)('rejects %s', (_name, props, message) => {
    // Act
    const build = () => new ReceiverStack(templateTestApp(), 'Invalid', props);

    // Assess
    expect(build).toThrow(InvalidReceiverStackPropsError);
    expect(build).toThrow(message);
  });

  it.each([
    [
      'a partial ARN (no random suffix)',
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:key',
    ],
    ['a secret name', 'booking-webhook-key'],
    ['an ARN of another service', 'arn:aws:ssm:eu-west-1:123456789012:parameter/key-AbC123'],
  ])('rejects %s as secretArn', (_name, secretArn) => {
    // Act
    const build = () => new ReceiverStack(templateTestApp(), 'Invalid', { secretArn });

    // Assess
    expect(build).toThrow(InvalidReceiverStackPropsError);
    expect(build).toThrow(/complete Secrets Manager secret ARN/);
  });
});

describe('Class: ReceiverStack in a region known at synth', () => {
  const IN_US = (arn: string) => arn.replace('eu-west-1', 'us-east-1');
  const CERTIFICATE_ARN =
    'arn:aws:acm:eu-west-1:123456789012:certificate/1f2e3d4c-5b6a-4789-90ab-cdef01234567';
  const build = (props: ConstructorParameters<typeof ReceiverStack>[2]) => () =>
    new ReceiverStack(templateTestApp(), 'InEurope', {
      env: { account: '123456789012', region: 'eu-west-1' },
      ...props,
    });

  it.each([
    [
      'certificateArn',
      { domainName: 'hooks.example.com', certificateArn: IN_US(CERTIFICATE_ARN) },
      'a regional custom domain takes a certificate of its own region only',
    ],
    [
      'secretArn',
      { secretArn: IN_US(SECRET_ARN) },
      'the receiver reads its secrets through Secrets Manager in its own region',
    ],
    [
      'secretKmsKeyArn',
      { secretArn: SECRET_ARN, secretKmsKeyArn: IN_US(KMS_KEY_ARN) },
      "a secret's key must be in the secret's region",
    ],
    [
      'secretArn.eu',
      { endpoints: [{ name: 'eu', secretArn: IN_US(SECRET_ARN) }] },
      'the receiver reads its secrets through Secrets Manager in its own region',
    ],
    [
      'archiveKmsKeyArn',
      { archiveKmsKeyArn: IN_US(KMS_KEY_ARN) },
      "an S3 bucket's key must be in the bucket's region",
    ],
  ] as const)('refuses a %s of another region, naming both regions', (name, props, why) => {
    // Assess
    expect(build(props)).toThrow(InvalidReceiverStackPropsError);
    expect(build(props)).toThrow(`${name} is in us-east-1 but the stack is in eu-west-1: ${why}`);
  });

  it('takes the same ARNs in its own region', () => {
    expect(
      build({
        domainName: 'hooks.example.com',
        certificateArn: CERTIFICATE_ARN,
        secretArn: SECRET_ARN,
        secretKmsKeyArn: KMS_KEY_ARN,
        archiveKmsKeyArn: KMS_KEY_ARN,
      }),
    ).not.toThrow();
  });
});
