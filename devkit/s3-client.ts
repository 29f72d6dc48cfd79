import { S3Client } from '@aws-sdk/client-s3';
import type { LocalArchiveCredentials } from './archive-credentials.js';
import { LOCAL_REGION } from './local-run.js';

/**
 * An S3 client for the local archive of `npm start` at `endpoint` (see `localArchiveEndpoint`),
 * signing with its state folder's `credentials` (see `localArchiveCredentials`): path-style
 * addressing, and checksums only where S3 requires them, which s3rver predates.
 */
export function localS3Client(endpoint: string, credentials: LocalArchiveCredentials): S3Client {
  return new S3Client({
    region: LOCAL_REGION,
    credentials,
    endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
