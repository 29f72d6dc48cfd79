/**
 * The part of s3rver's API that `local/local-archive.ts` uses (the package ships no types); see
 * its README. An `S3rver` is a Koa application: `callback()` is its request listener.
 */
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type { S3rverContext, S3rverMiddleware, S3rverStore };

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

  /** The object store s3rver's controllers reach through `ctx.store`. */
  interface S3rverStore {
    listObjects(bucket: string, options: unknown): Promise<S3rverListing>;
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
    /** Creates the buckets of `configureBuckets` that do not exist yet. */
    configureBuckets(): Promise<void>;
    /** The request listener serving the S3 API. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
