/**
 * Blob storage on S3: large execution data (trace spans, outputs, snapshots) kept behind a pointer, and
 * files handed out through presigned URLs. Works the same against AWS and the local S3 emulator.
 *
 * The S3 SDK (client-s3 and the presigner) is loaded with the store's first call, not with the
 * module: most routes that carry a blob store reach it only for graphs over the inline limit, and
 * their cold start should not pay for requiring it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { BlobStore, SignedUpload } from '../../core/files/blob-store';
import { s3Client } from '../aws/s3-client';
import { loadS3Presigner, loadS3Sdk } from '../aws/sdk-on-demand';
import { attachmentDisposition } from './content-disposition';

export type { BlobStore } from '../../core/files/blob-store';

export class S3BlobStore implements BlobStore {
  /**
   * @param bucket physical bucket name (e.g. from `FILES_BUCKET`)
   * @param client an S3 client; by default the process-wide one, looked up on every call so that a
   *   client reset (the local emulators restarting on new ports) is picked up
   */
  constructor(
    private readonly bucket: string,
    private readonly client?: S3Client,
  ) {}

  private ownUrl?: Promise<{ origin: string; pathPrefix: string }>;

  private s3(): Promise<S3Client> {
    return this.client ? Promise.resolve(this.client) : s3Client();
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.putJsonText(key, JSON.stringify(value));
  }

  async putJsonText(key: string, json: string): Promise<void> {
    await this.putBytes(key, Buffer.from(json, 'utf8'), 'application/json');
  }

  async delete(key: string): Promise<void> {
    const { DeleteObjectCommand } = await loadS3Sdk();
    await (await this.s3()).send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async getJson<T>(key: string): Promise<T | undefined> {
    const bytes = await this.getBytes(key);
    return bytes === undefined ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf-8')) as T);
  }

  async getBytes(key: string): Promise<Uint8Array | undefined> {
    const { GetObjectCommand, NoSuchKey } = await loadS3Sdk();
    try {
      const object = await (await this.s3()).send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await object.Body!.transformToByteArray();
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw error;
    }
  }

  /**
   * A URL of this bucket has the origin and path prefix of the URLs this store presigns (virtual-host
   * style in AWS, path style on the local endpoint): learned from one presigned URL, not guessed.
   */
  async keyOfUrl(url: string): Promise<string | undefined> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    this.ownUrl ??= this.presignGet('~', 60).then((presigned) => {
      const own = new URL(presigned);
      return { origin: own.origin, pathPrefix: own.pathname.slice(0, -1) };
    });
    const { origin, pathPrefix } = await this.ownUrl;
    if (parsed.origin !== origin || !parsed.pathname.startsWith(pathPrefix)) return undefined;
    const key = parsed.pathname.slice(pathPrefix.length).split('/').map(decodeURIComponent).join('/');
    return key === '' ? undefined : key;
  }

  async putBytes(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const { PutObjectCommand } = await loadS3Sdk();
    await (await this.s3()).send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async presignGet(key: string, expiresInSeconds: number): Promise<string> {
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([loadS3Sdk(), loadS3Presigner()]);
    // response-content-disposition is part of the signed query: a holder of the URL cannot drop it.
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(key.split('/').at(-1) ?? ''),
    });
    return getSignedUrl(await this.s3(), command, { expiresIn: expiresInSeconds });
  }

  async presignPut(key: string, upload: SignedUpload, expiresInSeconds: number): Promise<string> {
    const [{ PutObjectCommand }, { getSignedUrl }] = await Promise.all([loadS3Sdk(), loadS3Presigner()]);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ContentType: upload.contentType,
      ContentLength: upload.contentLength,
    });
    // The presigner leaves Content-Type out of the signature unless told to sign it.
    return getSignedUrl(await this.s3(), command, {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
  }
}

export function createS3BlobStore(bucket: string, client?: S3Client): BlobStore {
  return new S3BlobStore(bucket, client);
}
