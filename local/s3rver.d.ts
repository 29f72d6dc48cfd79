/**
 * The part of s3rver's API that `local/local-archive.ts` uses (the package ships no types); see
 * its README. An `S3rver` is a Koa application: `callback()` is its request listener.
 */
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type { S3rverContext, S3rverMiddleware, S3rverObject, S3rverStore };

  interface S3rverOptions {
    /** Folder the buckets and objects are kept in. */
    readonly directory: string;
    /** No request log on stdout. */
    readonly silent?: boolean;
    /** Buckets created by `configureBuckets` when missing. */
    readonly configureBuckets?: readonly { readonly name: string; readonly configs: readonly [] }[];
  }

  /** What s3rver's bucket listing (`getBucket`) finds in its store. */
  interface S3rverListing {
    readonly objects: ReadonlyArray<{ readonly key: string }>;
    readonly isTruncated: boolean;
  }

  /** An object being written: its content is the request (a stream) or a buffer. */
  interface S3rverObject {
    readonly bucket: string;
    readonly key: string;
    readonly content: import('node:stream').Readable | Buffer;
    readonly metadata: Record<string, unknown>;
  }

  /** The object store s3rver's controllers reach through `ctx.store`. */
  interface S3rverStore {
    listObjects(bucket: string, options: unknown): Promise<S3rverListing>;
    /** Writes an object's data and metadata; resolves with its size and MD5 (hex). */
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    /** The path of one of an object's files (`object`, `object.md5`, `metadata.json`). */
    getResourcePath(bucket: string, key: string, resource: string): string;
    putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  }

  /** The part of a Koa context of s3rver's that `local/local-archive.ts` reads and sets. */
  interface S3rverContext {
    readonly method: string;
    /** The parsed query string; set to replace it. */
    query: Record<string, string | string[] | undefined>;
    /** The answer: a plain object until s3rver's XML encoder turns it into XML. */
    body: unknown;
    store: S3rverStore;
  }

  /** A Koa middleware of s3rver's app. */
  type S3rverMiddleware = (ctx: S3rverContext, next: () => Promise<void>) => Promise<void>;

  export default class S3rver {
    constructor(options: S3rverOptions);
    /**
     * Koa's middleware list, composed by `callback()`: the logger, the XML encoder (which turns an
     * object `body` into XML after the others ran), mount interop, virtual hosts, the router.
     */
    readonly middleware: S3rverMiddleware[];
    /** The object store of every request. */
    readonly store: S3rverStore;
    /** Koa's `error` event: each error thrown while serving a request, after it was answered. */
    on(event: 'error', listener: (error: unknown) => void): this;
    /** Creates the buckets of `configureBuckets` that do not exist yet. */
    configureBuckets(): Promise<void>;
    /** The request listener serving the S3 API. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
