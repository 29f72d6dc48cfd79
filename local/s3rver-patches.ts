/**
 * Repairs to s3rver 3.7.1, its last release, applied to the local archive's instance: listings
 * paged without DES, object writes whose file errors reach the request instead of ending the
 * process, and its unexpected failures reported.
 * @module
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type S3rver from 's3rver';
import type { S3rverContext, S3rverObject, S3rverStore } from 's3rver';

/**
 * Applies every repair of this module to `s3rver`.
 *
 * @param onError - told once of each failure that is not an S3 refusal (answered 500 by s3rver)
 */
export function repairS3rver(s3rver: S3rver, onError: (error: unknown) => void): void {
  pageListingsWithoutDes(s3rver);
  writeObjectsSafely(s3rver.store);
  // s3rver answers any error thrown while serving a request, in S3's XML (500 unless it is one of
  // its refusals, which it marks `expose`), and then emits it here.
  s3rver.on('error', (error: unknown) => {
    if ((error as { expose?: unknown }).expose !== true) onError(error);
  });
}

/**
 * Makes s3rver's PutObject fail the request, not the process, when its file cannot be written.
 * s3rver pipes the body into a file stream without listening for that stream's errors, so a
 * name the file system refuses, a full disk or a folder in the file's place raised an
 * unhandled 'error' event and ended `npm start`. Here every error of the write rejects the put
 * (s3rver answers it 500), and the rest of the body is read and dropped.
 */
function writeObjectsSafely(store: S3rverStore): void {
  store.putObject = async (object: S3rverObject) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    const content = object.content;
    const md5 = createHash('md5');
    let size = 0;
    await new Promise<void>((resolve, reject) => {
      const file = createWriteStream(path);
      const fail = (error: unknown): void => {
        if (!Buffer.isBuffer(content)) {
          content.unpipe(file);
          content.resume();
        }
        file.destroy();
        reject(error);
      };
      file.once('error', fail);
      file.once('finish', resolve);
      if (Buffer.isBuffer(content)) {
        md5.update(content);
        size = content.length;
        file.end(content);
        return;
      }
      content.once('error', fail);
      content.on('data', (chunk: Buffer) => {
        md5.update(chunk);
        size += chunk.length;
      });
      content.pipe(file);
    });
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

/**
 * Pages ListObjectsV2 listings of more than 1,000 keys, which s3rver answers InternalError on
 * today's Node: s3rver 3.7.1, its last release, makes a truncated listing's continuation token
 * with DES, which the OpenSSL 3 of Node 17 and later refuses, so `replay` and the load test's
 * archive check failed on any busy hour (the local buffer writes up to an object a second). Run
 * inside s3rver's XML encoder, this takes the listing's truncation from s3rver before it makes a
 * token, and answers one of its own instead: the page's last key, base64url, which comes back as
 * `start-after` (what S3's tokens mean too; they are opaque to clients).
 */
function pageListingsWithoutDes(s3rver: S3rver): void {
  const pageListing = async (ctx: S3rverContext, next: () => Promise<void>): Promise<void> => {
    const { 'continuation-token': token, ...query } = ctx.query;
    if (ctx.method !== 'GET' || query['list-type'] !== '2') return next();
    if (typeof token === 'string') {
      ctx.query = { ...query, 'start-after': Buffer.from(token, 'base64url').toString('utf8') };
    }
    let lastKey: string | undefined;
    const { store } = ctx;
    // The store for this request only, with every other method of the real one (the router's
    // CORS and website middleware read it too).
    ctx.store = Object.assign(Object.create(store) as S3rverStore, {
      listObjects: async (bucket: string, options: unknown) => {
        const listing = await store.listObjects(bucket, options);
        if (!listing.isTruncated) return listing;
        lastKey = listing.objects.at(-1)?.key;
        return { ...listing, isTruncated: false };
      },
    });
    await next();
    const result = (ctx.body as { ListBucketResult?: Record<string, unknown> } | undefined)
      ?.ListBucketResult;
    if (result === undefined) return;
    if (typeof token === 'string') {
      result.ContinuationToken = token;
      result.StartAfter = undefined;
    }
    if (lastKey !== undefined) {
      result.IsTruncated = true;
      result.NextContinuationToken = Buffer.from(lastKey, 'utf8').toString('base64url');
    }
  };
  // Last but the router, which calls the listing: inside the XML encoder, which runs first.
  s3rver.middleware.splice(-1, 0, pageListing);
}
