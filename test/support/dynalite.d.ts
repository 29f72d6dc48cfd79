/**
 * The part of dynalite's API that `test/support/local-dynamodb.ts` uses (the package ships no
 * types); see its README, "Example".
 */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Milliseconds a new table stays CREATING; 500 by default. */
    readonly createTableMs?: number;
    /** Milliseconds a deleted table stays DELETING; 500 by default. */
    readonly deleteTableMs?: number;
    /** A LevelDB folder; without it the data lives in memory. */
    readonly path?: string;
  }

  /** An HTTP server speaking DynamoDB's JSON protocol; call `listen` to start it. */
  export default function dynalite(options?: DynaliteOptions): Server;
}
