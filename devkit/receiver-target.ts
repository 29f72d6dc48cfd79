/**
 * Where a receiver's queue, dead-letter queue and archive are, for the tools that read or send
 * to them (`npm run replay`, `npm run inspect`): a deployed stack's outputs, read through
 * CloudFormation with the SDK's usual credentials and region (or the `--profile`/`--region` a tool
 * takes), or the local run of `npm start` on its ports.
 * @module
 */
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { STACK_OUTPUTS } from '../lambda/contract/endpoints.js';
import { localArchiveCredentials } from './archive-credentials.js';
import {
  DLQ_NAME,
  LOCAL_ARCHIVE,
  localArchiveEndpoint,
  localPort,
  localQueueUrl,
  localStateDir,
  QUEUE_NAME,
} from './local-run.js';
import { withTimeout } from './network.js';
import { localS3Client } from './s3-client.js';
import { type AwsAccess, sqsClientFor } from './sqs-client.js';
import { readStackOutputs, type StackOutputs } from './stack-outputs.js';

export type { AwsAccess };

/** A receiver's queues and archive, and clients for them. */
export interface ReceiverTarget {
  /** For messages: `stack X` or `the local run`. */
  readonly name: string;
  /** Whether it is the local run of `npm start`. */
  readonly local: boolean;
  /** The queue the consumer reads (`QueueUrl`), when the stack has one. */
  readonly queueUrl: string | undefined;
  /** Its dead-letter queue (`DeadLetterQueueUrl`), when the stack has one. */
  readonly deadLetterUrl: string | undefined;
  /** The archive bucket (`ArchiveBucketName`), when the stack keeps an archive. */
  readonly bucket: string | undefined;
  /** The stack's outputs (its endpoints' secrets among them); none for the local run. */
  readonly outputs: StackOutputs | undefined;
  /** A new client of the archive (destroy it when done). */
  readonly s3: () => S3Client;
  /** A new client of the queues (destroy it when done). */
  readonly sqs: () => SQSClient;
}

/** What a call to the local run that finds nothing listening should say. */
export const LOCAL_REFUSED_HINT = 'start the local receiver with npm start, or pass --stack';

/**
 * The local run's queues and archive, on the ports its environment names (`LOCAL_SQS_PORT`,
 * `LOCAL_S3_PORT`); the archive's client signs with the credentials `npm start` keeps in the
 * state folder `LOCAL_STATE_DIR` names (see `localArchiveCredentials`), which it throws
 * `NoKeyError` for when they cannot be read.
 *
 * @param env - the environment
 * @param cwd - the directory a relative `LOCAL_STATE_DIR` is relative to (the project's)
 * @throws {UsageError} naming the variable when a port is not one
 */
export function localTarget(env: NodeJS.ProcessEnv, cwd: string): ReceiverTarget {
  const queuePort = localPort(env, 'queue');
  const archiveEndpoint = localArchiveEndpoint(localPort(env, 'archive'));
  const queueUrl = localQueueUrl(queuePort, QUEUE_NAME);
  return {
    name: 'the local run',
    local: true,
    queueUrl,
    deadLetterUrl: localQueueUrl(queuePort, DLQ_NAME),
    bucket: LOCAL_ARCHIVE.bucket,
    outputs: undefined,
    s3: () => localS3Client(archiveEndpoint, localArchiveCredentials(localStateDir(env, cwd))),
    sqs: () => sqsClientFor(queueUrl, env),
  };
}

/**
 * A deployed stack's queues and archive, from its outputs.
 *
 * @param stack - the stack's name
 * @param env - the environment (for the queue's region)
 * @param timeoutMs - how long reading the outputs may take
 * @param access - a profile and region instead of the SDK's defaults
 * @throws the SDK's error when CloudFormation refuses; `NetworkError` when it does not answer
 */
export async function stackTarget(
  stack: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  access: AwsAccess = {},
): Promise<ReceiverTarget> {
  const cloudFormation = new CloudFormationClient({ ...access });
  try {
    const outputs = await withTimeout(
      `Could not describe stack ${stack}`,
      timeoutMs,
      (abortSignal) => readStackOutputs(cloudFormation, stack, abortSignal),
    );
    const { values } = outputs;
    const queueUrl = values.get(STACK_OUTPUTS.queueUrl);
    return {
      name: `stack ${stack}`,
      local: false,
      queueUrl,
      deadLetterUrl: values.get(STACK_OUTPUTS.deadLetterQueueUrl),
      bucket: values.get(STACK_OUTPUTS.archiveBucketName),
      outputs,
      s3: () => new S3Client({ ...access }),
      sqs: () => sqsClientFor(queueUrl ?? '', env, access),
    };
  } finally {
    cloudFormation.destroy();
  }
}
