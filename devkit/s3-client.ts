import { S3Client } from '@aws-sdk/client-s3';

/** Region and s3rver's fixed local credentials (not a secret: s3rver accepts only these). */
const LOCAL_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
} as const;

/**
 * An S3 client for the local archive of `npm start` at `endpoint` (see `localArchiveEndpoint`):
 * path-style addressing, and checksums only where S3 requires them, which s3rver predates.
 */
export function localS3Client(endpoint: string): S3Client {
  return new S3Client({
    ...LOCAL_CONFIG,
    endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
