import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alias, type IKey, Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ARCHIVE_DAYS } from '../../lambda/contract/archive-layout.js';
import { METRIC_NAMES } from '../../lambda/contract/metric-names.js';
import { readReceiverContext } from '../../lib/context.js';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { ReceiverStack } from '../../lib/receiver-stack.js';
import { WebhookReceiver } from '../../lib/webhook-receiver.js';
import { appProps, SKIP_BUNDLING, templateTestApp } from './cdk-app.js';
import { type Synthesized, statementsOfRole, synthesize } from './synthesize.js';

const ARCHIVE_KEY_ARN =
  'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('Archive of deliveries (archive, archiveDays, archiveEncryptionKey)', () => {
  let archived: Synthesized;

  beforeAll(() => {
    archived = synthesize(() => ({ archive: true, archiveDays: 7 }));
  });

  it('keeps the calls in a bucket encrypted at rest, closed to the public, reachable over SSL only', () => {
    // Prepare
    const { resource, receiver, template, id } = archived;

    // Act
    const bucket = resource(receiver.archiveBucket);

    // Assess
    expect(bucket.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ],
    });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id(receiver.archiveBucket) },
      PolicyDocument: {
        Statement: [
          {
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
        ],
      },
    });
  });

  it('deletes archived calls after archiveDays, 30 by default in ReceiverStack', () => {
    // Act
    const defaults = Template.fromStack(new ReceiverStack(templateTestApp(), 'Archived'));

    // Assess
    expect(
      archived.resource(archived.receiver.archiveBucket).Properties.LifecycleConfiguration,
    ).toMatchObject({ Rules: [{ ExpirationInDays: 7, Status: 'Enabled' }] });
    defaults.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 30, Status: 'Enabled' }] },
    });
    expect(Object.keys(defaults.findOutputs('ArchiveBucketName'))).toEqual(['ArchiveBucketName']);
  });

  it('buffers the calls into hour prefixes of the bucket through Firehose', () => {
    // Prepare
    const { resource, receiver, id } = archived;

    // Act
    const stream = resource(receiver.archiveStream);

    // Assess
    expect(stream.Properties.DeliveryStreamType).toBe('DirectPut');
    expect(stream.Properties.DeliveryStreamEncryptionConfigurationInput).toEqual({
      KeyType: 'AWS_OWNED_CMK',
    });
    expect(stream.Properties.ExtendedS3DestinationConfiguration).toMatchObject({
      BucketARN: { 'Fn::GetAtt': [id(receiver.archiveBucket), 'Arn'] },
      Prefix: 'deliveries/!{timestamp:yyyy/MM/dd/HH}/',
      ErrorOutputPrefix: 'errors/!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd/HH}/',
      BufferingHints: { IntervalInSeconds: 300, SizeInMBs: 5 },
    });
  });

  it('lets the receiver put records to its stream and nothing else of the archive: no S3 read', () => {
    // Prepare
    const { template, receiver, id, resource } = archived;

    // Act
    const statements = statementsOfRole(
      template,
      id(receiver.node.findChild('ReceiverRole')),
    ) as Array<{ Action: string | string[]; Resource: unknown }>;

    // Assess
    const archiveStatements = statements.filter(({ Action }) =>
      [Action].flat().some((action) => /^(firehose|s3):/.test(action)),
    );
    expect(archiveStatements).toEqual([
      {
        Effect: 'Allow',
        Action: ['firehose:PutRecord', 'firehose:PutRecordBatch'],
        Resource: { 'Fn::GetAtt': [id(receiver.archiveStream), 'Arn'] },
      },
    ]);
    expect(resource(receiver.receiverFunction).Properties.Environment.Variables).toMatchObject({
      ARCHIVE_STREAM: { Ref: id(receiver.archiveStream) },
    });
    // Only Firehose's own role may touch the bucket's objects.
    const s3Users = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      policy.Properties.PolicyDocument.Statement.some((statement: { Action: unknown }) =>
        [statement.Action].flat().some((action) => String(action).startsWith('s3:')),
      ),
    );
    expect(s3Users.map((policy) => policy.Properties.Roles)).toEqual([
      [{ Ref: id(receiver.node.findChild('ArchiveDeliveryRole')) }],
    ]);
  });

  it('lets Firehose write, read back and list the archive bucket, abort an upload and write its error log: no delete, nothing else', () => {
    // Prepare
    const { template, receiver, id } = archived;
    const bucketArn = { 'Fn::GetAtt': [id(receiver.archiveBucket), 'Arn'] };
    const roleId = id(receiver.node.findChild('ArchiveDeliveryRole'));

    // Act
    const statements = statementsOfRole(template, roleId);
    const stream = Object.values(template.findResources('AWS::KinesisFirehose::DeliveryStream'))[0];

    // Assess: the S3 destination permissions AWS documents for Firehose
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        Resource: bucketArn,
      },
      {
        Effect: 'Allow',
        Action: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
        Resource: { 'Fn::Join': ['', [bucketArn, '/*']] },
      },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^ReceiverArchiveStreamLogs/), 'Arn'] },
      },
    ]);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          {
            Action: 'sts:AssumeRole',
            Effect: 'Allow',
            Principal: { Service: 'firehose.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    [
                      'arn:',
                      { Ref: 'AWS::Partition' },
                      ':firehose:',
                      { Ref: 'AWS::Region' },
                      ':',
                      { Ref: 'AWS::AccountId' },
                      ':deliverystream/*',
                    ],
                  ],
                },
              },
            },
          },
        ],
      },
    });
    expect(stream?.Properties.ExtendedS3DestinationConfiguration.RoleARN).toEqual({
      'Fn::GetAtt': [roleId, 'Arn'],
    });
    expect(stream?.DependsOn).toEqual(
      expect.arrayContaining([id(receiver.node.findChild('ArchiveDeliveryPolicy'))]),
    );
  });

  it('raises an alarm on the ArchiveWriteFailure metric the receiver emits', () => {
    // Prepare
    const { template, receiver } = archived;

    // Assess
    expect(receiver.alarms.archiveWriteFailures).toBeDefined();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: METRIC_NAMES.archiveWriteFailure,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('raises an alarm when Firehose holds a record two buffer intervals without writing it to the bucket', () => {
    // Prepare
    const { template, receiver, id } = archived;
    const streamId = id(receiver.archiveStream);

    // Assess: Firehose's own metric of its stream, its worst record per 5 minutes over 600 s.
    expect(receiver.alarms.archiveDeliveryDelayed).toBeDefined();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Firehose',
      MetricName: 'DeliveryToS3.DataFreshness',
      Dimensions: [{ Name: 'DeliveryStreamName', Value: { Ref: streamId } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 600,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    // Two of the intervals the deployed stream buffers for, whatever that interval becomes.
    const stream = template.findResources('AWS::KinesisFirehose::DeliveryStream')[streamId];
    const [alarm] = Object.values(
      template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: 'DeliveryToS3.DataFreshness' },
      }),
    );
    expect(alarm?.Properties.Threshold).toBe(
      2 * stream?.Properties.ExtendedS3DestinationConfiguration.BufferingHints.IntervalInSeconds,
    );
  });

  it('keeps no archive in the construct unless asked, and refuses archiveDays without it', () => {
    // Act
    const plain = synthesize(() => ({}));

    // Assess
    expect(plain.receiver.archiveBucket).toBeUndefined();
    expect(plain.receiver.alarms.archiveWriteFailures).toBeUndefined();
    expect(plain.receiver.alarms.archiveDeliveryDelayed).toBeUndefined();
    plain.template.resourceCountIs('AWS::S3::Bucket', 0);
    plain.template.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 0);
    expect(() => synthesize(() => ({ archiveDays: 7 }))).toThrow(
      new InvalidWebhookReceiverPropsError('archiveDays needs archive: true'),
    );
    expect(() => synthesize(() => ({ archive: true, archiveDays: 0 }))).toThrow(
      InvalidWebhookReceiverPropsError,
    );
  });

  it('keeps archived calls at most ten years, the longest window npm run replay takes', () => {
    // Act
    const longest = synthesize(() => ({ archive: true, archiveDays: MAX_ARCHIVE_DAYS }));

    // Assess
    expect(
      longest.resource(longest.receiver.archiveBucket).Properties.LifecycleConfiguration,
    ).toMatchObject({ Rules: [{ ExpirationInDays: 3653 }] });
    expect(() => synthesize(() => ({ archive: true, archiveDays: 3654 }))).toThrow(
      new InvalidWebhookReceiverPropsError(
        'archiveDays must be a whole number from 1 to 3653, got 3654',
      ),
    );
  });

  it('reads the context keys archive, archiveDays and archiveKmsKeyArn', () => {
    // Act
    const { props } = readReceiverContext(
      new App(
        appProps({
          ...SKIP_BUNDLING,
          archive: 'false',
          archiveDays: '14',
          archiveKmsKeyArn: ARCHIVE_KEY_ARN,
        }),
      ).node,
    );

    // Assess
    expect(props).toMatchObject({
      archive: false,
      archiveDays: 14,
      archiveKmsKeyArn: ARCHIVE_KEY_ARN,
    });
  });

  it('encrypts the bucket with the key of archiveKmsKeyArn and an S3 Bucket Key, and lets Firehose use it through S3 only', () => {
    // Act
    const stack = new ReceiverStack(templateTestApp(), 'ArchiveKey', {
      archiveKmsKeyArn: ARCHIVE_KEY_ARN,
    });
    const template = Template.fromStack(stack);
    const id = (construct: unknown) =>
      stack.getLogicalId((construct as Construct).node.defaultChild as CfnElement);

    // Assess
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: ARCHIVE_KEY_ARN,
            },
            BucketKeyEnabled: true,
          },
        ],
      },
    });
    expect(
      statementsOfRole(template, id(stack.receiver.node.findChild('ArchiveDeliveryRole'))),
    ).toContainEqual({
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Resource: ARCHIVE_KEY_ARN,
      Condition: {
        StringEquals: {
          'kms:ViaService': { 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
        },
      },
    });
    // The receiver only puts records to the stream, which keeps its AWS owned key.
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toMatch(
      /kms:(Encrypt|ReEncrypt|GenerateDataKey\*)/,
    );
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      DeliveryStreamEncryptionConfigurationInput: { KeyType: 'AWS_OWNED_CMK' },
    });
  });

  it('refuses archiveEncryptionKey without archive, and an archiveKmsKeyArn that is not a key ARN', () => {
    // Assess
    expect(() =>
      synthesize((stack) => ({
        archiveEncryptionKey: Key.fromKeyArn(stack, 'ArchiveKey', ARCHIVE_KEY_ARN),
      })),
    ).toThrow(new InvalidWebhookReceiverPropsError('archiveEncryptionKey needs archive: true'));
    expect(
      () =>
        new ReceiverStack(templateTestApp(), 'AliasKey', {
          archiveKmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:alias/archive',
        }),
    ).toThrow(
      /^archiveKmsKeyArn must be a KMS key ARN .*, got "arn:aws:kms:eu-west-1:123456789012:alias\/archive"$/,
    );
    expect(
      () =>
        new ReceiverStack(templateTestApp(), 'NoArchive', {
          archive: false,
          archiveKmsKeyArn: ARCHIVE_KEY_ARN,
        }),
    ).toThrow('archiveKmsKeyArn needs the archive, which archive=false turns off');
  });

  it('refuses an archive key Firehose could never write with: an alias, or a key of another region', () => {
    // Prepare
    const withKey = (make: (stack: Stack) => IKey) => () => {
      const stack = new Stack(templateTestApp(), 'Archived', {
        env: { account: '123456789012', region: 'eu-west-1' },
      });
      return new WebhookReceiver(stack, 'Receiver', {
        archive: true,
        archiveEncryptionKey: make(stack),
      });
    };
    const notAnAlias = /^archiveEncryptionKey must be a key, not an alias/;

    // Assess
    expect(withKey((stack) => new Key(stack, 'Key').addAlias('archive'))).toThrow(notAnAlias);
    expect(withKey((stack) => Alias.fromAliasName(stack, 'Alias', 'alias/archive'))).toThrow(
      notAnAlias,
    );
    expect(
      withKey((stack) =>
        Key.fromKeyArn(stack, 'Key', ARCHIVE_KEY_ARN.replace('eu-west-1', 'us-east-1')),
      ),
    ).toThrow(
      "archiveEncryptionKey is in us-east-1 but the stack is in eu-west-1: an S3 bucket's key must be in the bucket's region",
    );
    expect(withKey((stack) => new Key(stack, 'Key'))).not.toThrow();
    expect(withKey((stack) => Key.fromKeyArn(stack, 'Key', ARCHIVE_KEY_ARN))).not.toThrow();
  });
});
