import { Duration, Size, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ARCHIVE_LAYOUT } from '../lambda/contract/archive-layout.js';
import { ARCHIVE_STREAM } from '../lambda/contract/environment.js';
import { keyUseThroughService } from './key-use.js';
import { createLogGroup } from './log-group.js';
import { acknowledgeNagFindings } from './nag.js';

/** The id of the mapping the Firehose construct adds to the stack (its `/` made `--` by constructs). */
const FIREHOSE_CIDR_MAPPING = '@aws-cdk--aws-kinesisfirehose.CidrBlocks';

/**
 * Firehose's `DeliveryToS3.DataFreshness` of the archive's stream, at its maximum: the age in
 * seconds of the oldest record not yet written to the bucket. It grows while Firehose cannot write
 * (its key, the bucket's policy, an S3 outage), though every put the receiver makes succeeds.
 *
 * @param stream - the archive's delivery stream
 * @param options - period and label
 */
export function archiveDeliveryAge(
  stream: firehose.IDeliveryStream,
  options: Omit<cloudwatch.MetricOptions, 'statistic'>,
): cloudwatch.Metric {
  return stream.metric('DeliveryToS3.DataFreshness', {
    ...options,
    statistic: cloudwatch.Stats.MAXIMUM,
  });
}

/** The archive of deliveries: the bucket and the delivery stream that fills it. */
export interface DeliveryArchive {
  readonly bucket: s3.Bucket;
  readonly stream: firehose.DeliveryStream;
}

/**
 * The archive of every call the receiver answers: a Firehose delivery stream (Direct PUT,
 * encrypted with an AWS owned key) buffering records into an S3 bucket that is encrypted (SSE-S3,
 * or SSE-KMS with `archiveEncryptionKey`), SSL-only, closed to the public, and expires objects
 * after `archiveDays`. Objects lie under `deliveries/yyyy/MM/dd/HH/` (UTC), so a time window is a
 * prefix listing. The receiver may put
 * records to the stream and nothing else: it can neither read the bucket nor the stream.
 *
 * Firehose rather than a PutObject per call: it bills ingested data and writes a few objects an
 * hour, where one object per call would pay a PUT per call (docs/operations.md and
 * `npm run bench -- cost` compare them).
 *
 * @param scope - the construct
 * @param settings - `archiveDays`, `archiveEncryptionKey`, and the retention of the stream's error
 *   log
 * @param receiverFunction - gets `ARCHIVE_STREAM`, and `firehose:PutRecord` and `PutRecordBatch`
 *   on the stream
 */
export function createArchive(
  scope: Construct,
  settings: {
    readonly archiveDays: number;
    readonly archiveEncryptionKey: kms.IKey | undefined;
    readonly logRetention: logs.RetentionDays;
  },
  receiverFunction: lambda.Function,
): DeliveryArchive {
  const key = settings.archiveEncryptionKey;
  const bucket = new s3.Bucket(scope, 'ArchiveBucket', {
    ...(key === undefined
      ? { encryption: s3.BucketEncryption.S3_MANAGED }
      : // Firehose puts objects without encryption headers, so the bucket's default decides.
        { encryption: s3.BucketEncryption.KMS, encryptionKey: key, bucketKeyEnabled: true }),
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [
      {
        id: 'ExpireArchivedCalls',
        expiration: Duration.days(settings.archiveDays),
        abortIncompleteMultipartUploadAfter: Duration.days(1),
      },
    ],
  });
  acknowledgeNagFindings(bucket, {
    pack: 'AwsSolutions',
    rule: 'AwsSolutions-S1',
    reason:
      'AwsSolutions-S1 (archive bucket server access logs): only Firehose writes to it and only an operator replaying reads it; a log bucket would log every Firehose write, and reads of the archived personal data are audited with CloudTrail data events on this bucket, which the account owner turns on.',
  });
  const stack = Stack.of(scope);
  const hadCidrBlocks = stack.node.tryFindChild(FIREHOSE_CIDR_MAPPING) !== undefined;
  const errorLogGroup = createLogGroup(scope, 'ArchiveStreamLogs', settings.logRetention);
  const delivery = createDeliveryRole(scope, bucket, key, errorLogGroup);
  const stream = new firehose.DeliveryStream(scope, 'ArchiveStream', {
    encryption: firehose.StreamEncryption.awsOwnedKey(),
    // Bucket declares isWebsite as `boolean | undefined`, which exactOptionalPropertyTypes does
    // not accept for IBucket's optional field; the object is an IBucket all the same.
    destination: new firehose.S3Bucket(bucket as s3.IBucket, {
      // Seen through an immutable view, so the destination's own grants (CDK's read-write grant
      // on the bucket, wildcard actions included) add nothing: the role holds only its policy.
      role: delivery.role.withoutPolicyUpdates(),
      dataOutputPrefix: `${ARCHIVE_LAYOUT.deliveriesPrefix}!{timestamp:yyyy/MM/dd/HH}/`,
      errorOutputPrefix: `${ARCHIVE_LAYOUT.errorsPrefix}!{firehose:error-output-type}/!{timestamp:yyyy/MM/dd/HH}/`,
      bufferingInterval: Duration.seconds(ARCHIVE_LAYOUT.bufferSeconds),
      bufferingSize: Size.mebibytes(ARCHIVE_LAYOUT.bufferMegabytes),
      // Records are JSON lines of about 2 KB; gzip would save storage worth cents, and make the
      // objects unreadable to a plain `aws s3 cp`.
      compression: firehose.Compression.UNCOMPRESSED,
      loggingConfig: new firehose.EnableLogging(errorLogGroup),
    }),
  });
  // Firehose checks at creation that it can write the bucket.
  stream.node.addDependency(delivery.policy);
  // The L2 adds Firehose's source CIDR blocks per region to the stack for destinations in a VPC
  // (its `connections`); an S3 destination never looks them up, so the mapping would be left
  // unreferenced (CloudFormation warning W7001). Removed only when this stream added it.
  if (!hadCidrBlocks) stack.node.tryRemoveChild(FIREHOSE_CIDR_MAPPING);
  receiverFunction.addEnvironment(ARCHIVE_STREAM, stream.deliveryStreamName);
  // The receiver writes one PutRecord per call (archive-writer.ts); the grant adds PutRecordBatch.
  stream.grantPutRecords(receiverFunction);
  return { bucket, stream };
}

/**
 * The role Firehose delivers to the archive bucket with, and its one policy: the S3 permissions
 * AWS documents for an S3 destination (write objects, complete or abort multipart uploads, read
 * back what it wrote, list the bucket and its uploads) on this bucket and no other, the bucket's
 * customer managed key through S3 only when it has one, and writing its error log. No delete, no
 * object-lock or retention change on the archived personal data. Only Firehose acting for a
 * stream of this account may assume it.
 */
function createDeliveryRole(
  scope: Construct,
  bucket: s3.Bucket,
  key: kms.IKey | undefined,
  errorLogGroup: logs.ILogGroup,
): { readonly role: iam.Role; readonly policy: iam.Policy } {
  const stack = Stack.of(scope);
  const role = new iam.Role(scope, 'ArchiveDeliveryRole', {
    // Firehose assumes the role for a stream of this account only (confused deputy): naming this
    // stream itself would make the role and the stream refer to each other.
    assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com', {
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'firehose',
            resource: 'deliverystream',
            resourceName: '*',
          }),
        },
      },
    }),
    description: 'Lets Firehose write the archive of webhook deliveries to its bucket',
  });
  const policy = new iam.Policy(scope, 'ArchiveDeliveryPolicy', {
    roles: [role],
    statements: [
      new iam.PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        resources: [bucket.bucketArn],
      }),
      new iam.PolicyStatement({
        actions: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
        resources: [bucket.arnForObjects('*')],
      }),
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [errorLogGroup.logGroupArn],
      }),
      // S3 asks KMS for a data key to write an object and decrypts it to read one back or to
      // finish a multipart upload, each time with the caller's permissions.
      ...(key === undefined
        ? []
        : [
            keyUseThroughService(scope, {
              service: 's3',
              actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
              keyArns: [key.keyArn],
            }),
          ]),
    ],
  });
  acknowledgeNagFindings(policy, {
    pack: 'AwsSolutions',
    rule: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
    reason:
      'AwsSolutions-IAM5 (Firehose role on the archive bucket objects): Firehose names each object by time and a random id, so it may write any key of this bucket and no other.',
  });
  return { role, policy };
}
