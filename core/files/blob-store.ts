/**
 * Port: a key-value store of blobs (S3 in AWS and locally). Large parts of items live here behind a
 * pointer, and files are kept here and handed out through presigned URLs.
 */
export interface BlobStore {
  /** Stores `value` as JSON (`application/json`). */
  putJson(key: string, value: unknown): Promise<void>;
  /** Stores JSON text the caller has serialized already, so a large value is not serialized twice. */
  putJsonText(key: string, json: string): Promise<void>;
  /** Removes a blob; removing one that is not there is no error. */
  delete(key: string): Promise<void>;
  /** Reads a JSON blob back; `undefined` when there is no such key. */
  getJson<T>(key: string): Promise<T | undefined>;
  putBytes(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes of a blob; `undefined` when there is no such key. */
  getBytes(key: string): Promise<Uint8Array | undefined>;
  /**
   * A URL that anyone holding it can GET the blob with, for `expiresInSeconds`. It is answered as an
   * attachment named after the key's last segment, so that a browser never renders what it holds
   * (an HTML or SVG upload) as a page of the bucket's origin.
   */
  presignGet(key: string, expiresInSeconds: number): Promise<string>;
  /**
   * A URL to PUT the blob with. Its type and length are signed: S3 refuses an upload whose
   * `Content-Type` or `Content-Length` differs from these.
   */
  presignPut(key: string, upload: SignedUpload, expiresInSeconds: number): Promise<string>;
  /** The key of a blob of this store that `url` points at (a presigned URL of it), or undefined. */
  keyOfUrl(url: string): Promise<string | undefined>;
}

/** What a presigned PUT holds the upload to. */
export interface SignedUpload {
  contentType: string;
  /** Bytes: exactly this many, not a bound. */
  contentLength: number;
}

/** What the item stores need of it: JSON blobs only. */
export type JsonBlobStore = Pick<BlobStore, 'putJson' | 'putJsonText' | 'delete' | 'getJson'>;
