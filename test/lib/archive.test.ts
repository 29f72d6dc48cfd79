import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../../lambda/receiver/metric-names.js';
import { readReceiverContext } from '../../lib/context.js';
import { InvalidWebhookReceiverPropsError } from '../../lib/receiver-settings.js';
import { ReceiverStack } from '../../lib/receiver-stack.js';
import { appProps, SKIP_BUNDLING, templateTestApp } from './cdk-app.js';
import { policyStatements, type Synthesized, statementsOfRole, synthesize } from './synthesize.js';

describe('Archive of deliveries (archive, archiveDays)', () => {
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
        Action: 'firehose:PutRecord',
        Resource: { 'Fn::GetAtt': [id(receiver.archiveStream), 'Arn'] },
      },
    ]);
    expect(resource(receiver.receiverFunction).Properties.Environment.Variables).toMatchObject({
      ARCHIVE_STREAM: { Ref: id(receiver.archiveStream) },
    });
    // Only Firehose's own role may touch the bucket's objects.
    const s3Readers = policyStatements(template).filter((statement) =>
      [statement.Action].flat().some((action) => String(action).startsWith('s3:Get')),
    );
    expect(s3Readers).toHaveLength(1);
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

  it('keeps no archive in the construct unless asked, and refuses archiveDays without it', () => {
    // Act
    const plain = synthesize(() => ({}));

    // Assess
    expect(plain.receiver.archiveBucket).toBeUndefined();
    expect(plain.receiver.alarms.archiveWriteFailures).toBeUndefined();
    plain.template.resourceCountIs('AWS::S3::Bucket', 0);
    plain.template.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 0);
    expect(() => synthesize(() => ({ archiveDays: 7 }))).toThrow(
      new InvalidWebhookReceiverPropsError('archiveDays needs archive: true'),
    );
    expect(() => synthesize(() => ({ archive: true, archiveDays: 0 }))).toThrow(
      InvalidWebhookReceiverPropsError,
    );
  });

  it('reads the context keys archive and archiveDays', () => {
    // Act
    const { props } = readReceiverContext(
      new App(appProps({ ...SKIP_BUNDLING, archive: 'false', archiveDays: '14' })).node,
    );

    // Assess
    expect(props).toMatchObject({ archive: false, archiveDays: 14 });
  });
});
