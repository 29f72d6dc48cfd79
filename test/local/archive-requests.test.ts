import { describe, expect, it } from 'vitest';
import { archiveKeyRefusal, s3RequestRefusal } from '../../local/archive-requests.js';

const BUCKET = '/webhook-archive';

describe('Function: archiveKeyRefusal', () => {
  it.each([
    ['deliveries/2026/12/07/01/webhook-archive-1-2026-12-07-01-00-00-abc'],
    ['a%20b/c%C3%A9'],
    [`${'a'.repeat(255)}/${'b'.repeat(233)}`],
  ])('keeps %s', (key) => {
    expect(archiveKeyRefusal(key)).toBeUndefined();
  });

  it.each([
    ['an encoded /', '..%2F..%2Fescaped'],
    ['an encoded / in lower case', '..%2f..%2fescaped'],
    ['an encoded \\', '..%5C..%5Cescaped'],
    ['a \\', 'a\\b'],
    ['a / encoded twice', 'a%252Fb'],
    ['a \\ encoded twice', 'a%255Cb'],
    ['a .. segment', 'a/../../escaped'],
    ['a .. segment percent-encoded', '%2E%2E/%2E%2E/escaped'],
    ['a . segment', 'a/./b'],
    ['an empty segment', 'a//b'],
    ['a trailing /', 'a/'],
    ['NUL', 'a%00b'],
    ['an s3rver file name', 'a._S3rver_object/b'],
    ['bad percent-encoding', 'a%E0%A4%A'],
  ])('refuses %s with 400 InvalidArgument', (_name, key) => {
    expect(archiveKeyRefusal(key)).toMatchObject({ status: 400, code: 'InvalidArgument' });
  });

  it.each([
    ['a segment over 255 bytes', `${'a'.repeat(256)}/b`],
    ['a segment over 255 bytes in UTF-8', `${'é'.repeat(128)}/b`],
    ["a last segment too long for s3rver's suffix", 'b'.repeat(234)],
    ['a key over 1,024 bytes', Array.from({ length: 6 }, () => 'c'.repeat(200)).join('/')],
  ])('refuses %s with 400 KeyTooLongError', (_name, key) => {
    expect(archiveKeyRefusal(key)).toMatchObject({ status: 400, code: 'KeyTooLongError' });
  });
});

describe('Function: s3RequestRefusal', () => {
  it.each([
    ['GET', `${BUCKET}?list-type=2&prefix=deliveries%2F&x-id=ListObjectsV2`, undefined],
    ['HEAD', BUCKET, undefined],
    ['GET', `${BUCKET}/deliveries/k?x-id=GetObject`, undefined],
    ['HEAD', `${BUCKET}/deliveries/k`, undefined],
    ['PUT', `${BUCKET}/deliveries/k?x-id=PutObject`, undefined],
    ['DELETE', `${BUCKET}/deliveries/k`, undefined],
  ])('lets %s %s through', (method, url) => {
    expect(s3RequestRefusal(method, url, undefined)).toBeUndefined();
  });

  it.each([
    ['ListBuckets', 'GET', '/', 403],
    ['CreateBucket', 'PUT', '/another-bucket', 404],
    ['DeleteBucket', 'DELETE', BUCKET, 403],
    ['a bucket named by traversal', 'PUT', '/..%2F..%2Fescaped', 404],
    ['DeleteObjects', 'POST', `${BUCKET}?delete`, 403],
    ['a browser form upload', 'POST', BUCKET, 403],
    ['a multipart upload', 'POST', `${BUCKET}/k?uploads`, 403],
    ['an upload part', 'PUT', `${BUCKET}/k?partNumber=1&uploadId=..%2F..%2Fx`, 403],
    ['PutObjectTagging', 'PUT', `${BUCKET}/k?tagging`, 403],
    ['PutBucketCors', 'PUT', `${BUCKET}?cors`, 403],
    ['a key outside the bucket', 'PUT', `${BUCKET}/..%2F..%2Fescaped`, 400],
  ])('refuses %s', (_name, method, url, status) => {
    expect(s3RequestRefusal(method, url, undefined)?.status).toBe(status);
  });

  it('refuses CopyObject, which reads a key of its header', () => {
    expect(
      s3RequestRefusal('PUT', `${BUCKET}/k`, '/webhook-archive/..%2F..%2Fsecret')?.status,
    ).toBe(403);
  });
});
