import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { isLoopbackHost } from './local-run.js';

/** Region and credentials the SDK needs to sign a request; the embedded queue ignores them. */
const LOCAL_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** A named profile and a region for AWS clients, instead of the SDK's defaults. */
export interface AwsAccess {
  readonly profile?: string;
  readonly region?: string;
}

/**
 * An SQS client for a queue URL. A loopback URL is the embedded queue of `npm start`: the client
 * talks to that origin with placeholder credentials, so no AWS setup is needed. Any other URL gets
 * the SDK's normal configuration (credentials chain or `access`'s profile, `AWS_ENDPOINT_URL_SQS`), with the region
 * `access` names, else from `AWS_REGION` or, failing that, from the queue URL's host (`sqs.<region>.amazonaws.com`).
 */
export function sqsClientFor(
  queueUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  access: AwsAccess = {},
): SQSClient {
  const url = new URL(queueUrl);
  if (isLoopbackUrl(queueUrl)) {
    return new SQSClient({ ...LOCAL_CONFIG, endpoint: url.origin });
  }
  const config: SQSClientConfig = access.profile === undefined ? {} : { profile: access.profile };
  const region =
    access.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? regionOfQueueHost(url.hostname);
  if (region !== undefined) config.region = region;
  return new SQSClient(config);
}

/** Whether a URL points at this machine (the embedded queue of `npm start`), not at AWS. */
export function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

/** `eu-west-1` from `sqs.eu-west-1.amazonaws.com` (or the legacy `eu-west-1.queue.amazonaws.com`). */
function regionOfQueueHost(hostname: string): string | undefined {
  return (
    /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(hostname)?.[1] ??
    /^([a-z0-9-]+)\.queue\.amazonaws\.com(\.cn)?$/.exec(hostname)?.[1]
  );
}
