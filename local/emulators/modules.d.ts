/**
 * Minimal typings for the local emulators that ship without their own (only what the local emulators use).
 */

declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** LevelDB directory; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
  }

  /** A plain Node HTTP server whose `close` also closes the LevelDB store (and so releases its lock). */
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}

declare module 's3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
  }

  /** An object as the controllers hand it to the store: the request body and the request headers. */
  export interface S3rverObject {
    bucket: string;
    key: string;
    content: Buffer | NodeJS.ReadableStream;
    metadata: Record<string, string>;
  }

  /** The part of s3rver's filesystem store the local emulators replace or call. */
  export interface S3rverFilesystemStore {
    /** `<directory>/<bucket>/<key>._S3rver_<resource>` (`object`, `object.md5`, `metadata.json`). */
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    httpServer?: Server;
    store: S3rverFilesystemStore;
    run(): Promise<{ address: string; port: number; family: string }>;
    close(): Promise<void>;
  }
  export default S3rver;
}

declare module 's3rver/lib/models/account.js' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
  }
  const account: { DUMMY_ACCOUNT: AWSAccount };
  export default account;
}

declare module 's3rver/lib/models/object.js' {
  const S3Object: {
    /** The request headers s3rver keeps with an object (besides `x-amz-meta-*`). */
    ALLOWED_METADATA: string[];
  };
  export default S3Object;
}
