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
  /** A URL that anyone holding it can GET the blob with, for `expiresInSeconds`. */
  presignGet(key: string, expiresInSeconds: number): Promise<string>;
  /** A URL to PUT the blob with; the upload must send the same `Content-Type`. */
  presignPut(key: string, contentType: string, expiresInSeconds: number): Promise<string>;
  /** The key of a blob of this store that `url` points at (a presigned URL of it), or undefined. */
  keyOfUrl(url: string): Promise<string | undefined>;
}

/** What the item stores need of it: JSON blobs only. */
export type JsonBlobStore = Pick<BlobStore, 'putJson' | 'putJsonText' | 'delete' | 'getJson'>;
