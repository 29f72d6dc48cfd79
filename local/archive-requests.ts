/**
 * The S3 requests the local archive hands to s3rver: the operations the tools use, on the one
 * bucket, for keys that name a file inside the bucket's folder. s3rver stores a key as a path
 * under the bucket's folder, decoding it whole, so a key `..%2F..%2Fx` was written two folders
 * above the archive, a segment too long for a file name threw where nothing caught it, and a
 * bucket-level DELETE would remove the archive. Every other request is refused here, answered in
 * S3's XML error format, before s3rver sees it.
 * @module
 */
import { LOCAL_ARCHIVE } from '../devkit/local-run.js';

/** A refusal, in S3's terms. */
export interface S3Refusal {
  readonly status: 400 | 403 | 404;
  readonly code: string;
  readonly message: string;
}

/** Longest file name of the file systems the archive lives on, in bytes. */
const MAX_SEGMENT_BYTES = 255;

/**
 * What s3rver appends to a key's last segment to name its files: the longest of
 * `._S3rver_object`, `._S3rver_object.md5` and `._S3rver_metadata.json`.
 */
const S3RVER_SUFFIX = '._S3rver_metadata.json';

/** S3's longest key, in bytes. */
const MAX_KEY_BYTES = 1024;

/** The operations the local archive answers, as its refusals name them. */
export const ARCHIVE_OPERATIONS_TEXT = `ListObjectsV2, HeadBucket, GetObject, HeadObject, PutObject and DeleteObject on ${LOCAL_ARCHIVE.bucket}`;

// The query parameters of a bucket listing, and those the SDK adds to any call.
const LISTING_PARAMETERS = new Set([
  'list-type',
  'prefix',
  'delimiter',
  'max-keys',
  'continuation-token',
  'start-after',
  'encoding-type',
  'fetch-owner',
  'marker',
]);
const ANY_CALL_PARAMETERS = new Set(['x-id']);

/**
 * Why the local archive refuses an S3 request before s3rver sees it, or `undefined` when it
 * may go on (its signature is checked apart).
 *
 * @param method - the HTTP method
 * @param url - the request target as it arrived (path percent-encoded, and query)
 * @param copySource - its `x-amz-copy-source` header (a copy reads another key)
 */
export function s3RequestRefusal(
  method: string,
  url: string,
  copySource: string | undefined,
): S3Refusal | undefined {
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const names = queryNames(at === -1 ? '' : url.slice(at + 1));
  const [empty, bucket, ...rawKey] = path.split('/');
  if (empty !== '' || bucket === undefined || bucket === '') {
    return {
      status: 403,
      code: 'AccessDenied',
      message: `the local archive answers only ${ARCHIVE_OPERATIONS_TEXT}`,
    };
  }
  if (bucket !== LOCAL_ARCHIVE.bucket) {
    return {
      status: 404,
      code: 'NoSuchBucket',
      message: `the local archive has one bucket, ${LOCAL_ARCHIVE.bucket}`,
    };
  }
  const key = rawKey.join('/');
  const allowed =
    key === ''
      ? (method === 'GET' || method === 'HEAD') &&
        names.every((name) => LISTING_PARAMETERS.has(name) || isAnyCallParameter(name))
      : ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method) &&
        copySource === undefined &&
        names.every(isAnyCallParameter);
  if (!allowed) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: `the local archive answers only ${ARCHIVE_OPERATIONS_TEXT}`,
    };
  }
  return key === '' ? undefined : archiveKeyRefusal(key);
}

/**
 * Why an object key, as it arrived in the path (percent-encoded), cannot be kept in the bucket's
 * folder, or `undefined` when it can: no encoded separator (`%2F`, `%5C`, in the path or once
 * decoded), no `.` or `..` segment, no empty segment (the file system would merge it with its
 * neighbour), no segment over 255 bytes (the last one with s3rver's suffix), no NUL, no part
 * named like s3rver's own files, at most 1,024 bytes in all.
 *
 * @param rawKey - the key's part of the path, percent-encoded
 */
export function archiveKeyRefusal(rawKey: string): S3Refusal | undefined {
  const invalid = (message: string): S3Refusal => ({
    status: 400,
    code: 'InvalidArgument',
    message,
  });
  const tooLong = (message: string): S3Refusal => ({
    status: 400,
    code: 'KeyTooLongError',
    message,
  });
  if (/%(2f|5c)/i.test(rawKey) || rawKey.includes('\\')) {
    return invalid('a key may not hold an encoded / or a \\');
  }
  const segments: string[] = [];
  for (const raw of rawKey.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return invalid('a key must be valid percent-encoded UTF-8');
    }
    if (/[\\/\0]|%(2f|5c)/i.test(segment))
      return invalid('a key may not hold an encoded / or a \\, or NUL');
    if (segment === '' || segment === '.' || segment === '..') {
      return invalid('a key may not have an empty, . or .. segment');
    }
    if (segment.includes('._S3rver_'))
      return invalid("a key may not name s3rver's own files (._S3rver_)");
    segments.push(segment);
  }
  const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
  const last = segments.at(-1) ?? '';
  if (segments.some((segment) => bytes(segment) > MAX_SEGMENT_BYTES)) {
    return tooLong(`a key holds segments of at most ${MAX_SEGMENT_BYTES} bytes`);
  }
  if (bytes(last) + bytes(S3RVER_SUFFIX) > MAX_SEGMENT_BYTES) {
    return tooLong(
      `a key holds a last segment of at most ${MAX_SEGMENT_BYTES - bytes(S3RVER_SUFFIX)} bytes here (s3rver adds ${S3RVER_SUFFIX} to its file name)`,
    );
  }
  if (bytes(segments.join('/')) > MAX_KEY_BYTES) {
    return tooLong(`a key holds at most ${MAX_KEY_BYTES} bytes`);
  }
  return undefined;
}

/** Whether a query parameter may come with any call: the SDK's `x-id`, a presigned URL's `X-Amz-*`. */
function isAnyCallParameter(name: string): boolean {
  return ANY_CALL_PARAMETERS.has(name) || name.startsWith('X-Amz-');
}

/** The decoded names of a raw query's parameters (an undecodable one kept as it is). */
function queryNames(rawQuery: string): string[] {
  return rawQuery
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const name = pair.split('=', 1)[0] ?? '';
      try {
        return decodeURIComponent(name);
      } catch {
        return name;
      }
    });
}
