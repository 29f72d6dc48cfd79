/**
 * The part of s3rver's API that `local/local-archive.ts` uses (the package ships no types); see
 * its README. An `S3rver` is a Koa application: `callback()` is its request listener.
 */
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface S3rverOptions {
    /** Folder the buckets and objects are kept in. */
    readonly directory: string;
    /** No request log on stdout. */
    readonly silent?: boolean;
    /** Buckets created by `configureBuckets` when missing. */
    readonly configureBuckets?: readonly { readonly name: string; readonly configs: readonly [] }[];
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Creates the buckets of `configureBuckets` that do not exist yet. */
    configureBuckets(): Promise<void>;
    /** The request listener serving the S3 API. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
