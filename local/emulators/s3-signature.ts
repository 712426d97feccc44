/**
 * What S3 checks before it answers, done for the local S3 (s3rver checks no SigV4 signature): a
 * request is signed with SigV4, in its Authorization header or as a presigned URL, by a key pair the
 * stack knows, the signature recomputed here with the SDK's own signer matches, and a presigned URL
 * has not expired. A request signed otherwise, or not at all, is refused with the 403 S3 answers
 * (AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId, RequestTimeTooSkewed); so is listing a
 * bucket's keys, which nothing of the service does. CORS preflights carry no credentials and pass,
 * as they do in S3.
 *
 * Not checked: the body against a signed `x-amz-content-sha256` (only the service's own clients sign
 * with the header, and they hash what they send).
 */
import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { getCanonicalHeaders, SignatureV4 } from '@smithy/signature-v4';
import type { HeaderBag, HttpRequest, QueryParameterBag, SourceData } from '@smithy/types';

export interface S3Refusal {
  status: 400 | 403;
  /** S3's error code, e.g. `SignatureDoesNotMatch`. */
  code: string;
  message: string;
}

export interface S3RequestToCheck {
  method: string;
  /** The request target as sent: path and query, still percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface SignatureCheckOptions {
  /** Secret access keys by access key id. */
  keys: ReadonlyMap<string, string>;
  now: () => Date;
}

const algorithm = 'AWS4-HMAC-SHA256';
const unsignedPayload = 'UNSIGNED-PAYLOAD';
/** S3 refuses header-signed requests more than 15 minutes off its clock (RequestTimeTooSkewed). */
const maxClockSkewInMs = 15 * 60 * 1000;
/** SigV4 presigned URLs live at most 7 days. */
const maxExpiresInSeconds = 604_800;
/** Bucket-level GETs that read one setting rather than list keys. */
const bucketSettings = new Set(['cors', 'location', 'acl', 'policy', 'versioning', 'tagging', 'website']);

/** SHA-256, and HMAC-SHA256 when given a secret, in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function bytesOf(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** The signer's own canonical request and string to sign, opened up to recompute a signature. */
class SignatureCheck extends SignatureV4 {
  constructor(
    private readonly scope: CredentialScope,
    secretAccessKey: string,
  ) {
    super({
      service: scope.service,
      region: scope.region,
      credentials: { accessKeyId: scope.accessKeyId, secretAccessKey },
      sha256: Sha256,
      // S3 signs the path as sent, without normalizing it or encoding it twice.
      uriEscapePath: false,
    });
  }

  async signatureOf(request: HttpRequest, headers: HeaderBag, payloadHash: string, longDate: string) {
    const canonicalRequest = this.createCanonicalRequest(request, headers, payloadHash);
    const stringToSign = await this.createStringToSign(
      longDate,
      this.scope.text,
      canonicalRequest,
      algorithm,
    );
    return this.sign(stringToSign, {
      signingDate: this.scope.date,
      signingRegion: this.scope.region,
      signingService: this.scope.service,
    });
  }
}

interface CredentialScope {
  accessKeyId: string;
  date: Date;
  region: string;
  service: string;
  /** `<yyyymmdd>/<region>/<service>/aws4_request` */
  text: string;
}

/** What one request claims: who signed it, when, which headers, and the signature. */
interface SignatureClaim {
  credential: string;
  longDate: string;
  signedHeaders: string;
  signature: string;
  payloadHash: string;
  /** Seconds, for a presigned URL. */
  expiresInSeconds?: number;
}

const refuse = (status: 400 | 403, code: string, message: string): S3Refusal => ({ status, code, message });
const accessDenied = (message: string) => refuse(403, 'AccessDenied', message);
const mismatch = () =>
  refuse(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
  );

/** The refusal S3 would answer `request` with, or undefined when it may go on to s3rver. */
export async function checkS3Request(
  request: S3RequestToCheck,
  options: SignatureCheckOptions,
): Promise<S3Refusal | undefined> {
  if (request.method === 'OPTIONS') return undefined;
  const target = parseTarget(request.url);
  if (!target) return refuse(400, 'InvalidURI', 'Could not parse the specified URI.');
  if (isListing(request.method, target.path, target.query))
    return accessDenied('Listing the keys of a bucket is not allowed here.');
  const presigned = target.query['X-Amz-Algorithm'] !== undefined;
  const authorization = firstValue(request.headers.authorization);
  if (presigned && authorization !== undefined)
    return refuse(400, 'InvalidArgument', 'Only one auth mechanism allowed.');
  if (!presigned && authorization === undefined) return accessDenied('Access Denied');
  const claim = presigned ? presignedClaim(target.query) : headerClaim(authorization!, request.headers);
  if ('status' in claim) return claim;
  return verify(request, target, claim, options);
}

async function verify(
  request: S3RequestToCheck,
  target: { path: string; query: QueryParameterBag },
  claim: SignatureClaim,
  options: SignatureCheckOptions,
): Promise<S3Refusal | undefined> {
  const scope = scopeOf(claim.credential);
  if (!scope) return accessDenied(`Invalid credential: ${claim.credential}`);
  const secret = options.keys.get(scope.accessKeyId);
  if (secret === undefined)
    return refuse(
      403,
      'InvalidAccessKeyId',
      'The AWS Access Key Id you provided does not exist in our records.',
    );
  const signedAt = dateOf(claim.longDate);
  if (!signedAt || !claim.longDate.startsWith(scope.text.slice(0, 8))) return mismatch();
  const now = options.now().getTime();
  if (claim.expiresInSeconds !== undefined) {
    if (now > signedAt.getTime() + claim.expiresInSeconds * 1000) return accessDenied('Request has expired');
    if (signedAt.getTime() - now > maxClockSkewInMs) return accessDenied('Request is not valid yet');
  } else if (Math.abs(now - signedAt.getTime()) > maxClockSkewInMs) {
    return refuse(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  }
  const names = claim.signedHeaders.split(';');
  if (!names.includes('host')) return accessDenied('host must be a signed header');
  const headers: HeaderBag = Object.create(null);
  for (const name of names) {
    const value = request.headers[name];
    if (value === undefined) return mismatch();
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const canonicalHeaders = getCanonicalHeaders({ headers } as HttpRequest, undefined, new Set(names));
  const signable = {
    method: request.method,
    protocol: 'http:',
    hostname: '',
    path: target.path,
    query: target.query,
    headers,
  } as HttpRequest;
  const expected = await new SignatureCheck(scope, secret).signatureOf(
    signable,
    canonicalHeaders,
    claim.payloadHash,
    claim.longDate,
  );
  return sameText(expected, claim.signature) ? undefined : mismatch();
}

function presignedClaim(query: QueryParameterBag): SignatureClaim | S3Refusal {
  const value = (name: string) => {
    const given = query[name];
    return typeof given === 'string' ? given : undefined;
  };
  const credential = value('X-Amz-Credential');
  const longDate = value('X-Amz-Date');
  const expires = value('X-Amz-Expires');
  const signedHeaders = value('X-Amz-SignedHeaders');
  const signature = value('X-Amz-Signature');
  if (value('X-Amz-Algorithm') !== algorithm) return accessDenied(`X-Amz-Algorithm must be ${algorithm}.`);
  if (!credential || !longDate || !expires || !signedHeaders || !signature)
    return accessDenied(
      'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
    );
  const expiresInSeconds = Number(expires);
  if (!/^\d+$/.test(expires) || expiresInSeconds > maxExpiresInSeconds)
    return accessDenied('X-Amz-Expires must be a whole number of seconds, at most 604800.');
  return { credential, longDate, signedHeaders, signature, payloadHash: unsignedPayload, expiresInSeconds };
}

const authorizationPattern =
  /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/;

function headerClaim(authorization: string, headers: IncomingHttpHeaders): SignatureClaim | S3Refusal {
  const match = authorizationPattern.exec(authorization.trim());
  if (!match) return accessDenied('Only AWS4-HMAC-SHA256 Authorization headers are accepted here.');
  const longDate = firstValue(headers['x-amz-date']);
  const payloadHash = firstValue(headers['x-amz-content-sha256']);
  if (!longDate) return accessDenied('AWS authentication requires a valid x-amz-date header.');
  if (!payloadHash) return accessDenied('Missing required header for this request: x-amz-content-sha256');
  const [, credential, signedHeaders, signature] = match as unknown as [string, string, string, string];
  return { credential, longDate, signedHeaders, signature, payloadHash };
}

function scopeOf(credential: string): CredentialScope | undefined {
  const [accessKeyId, day, region, service, terminator, ...rest] = credential.split('/');
  if (!accessKeyId || !day || !region || !service || terminator !== 'aws4_request' || rest.length > 0)
    return undefined;
  const date = dateOf(`${day}T000000Z`);
  if (!date) return undefined;
  return { accessKeyId, date, region, service, text: `${day}/${region}/${service}/aws4_request` };
}

/** `20261128T112838Z` as a Date, or undefined. */
function dateOf(longDate: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(longDate);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day, hour, minute, second));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The path as sent, and the query decoded, as the signer takes it (it encodes the query again). */
function parseTarget(url: string): { path: string; query: QueryParameterBag } | undefined {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  // No prototype: a parameter named __proto__ is a parameter like any other.
  const query: QueryParameterBag = Object.create(null);
  if (at >= 0) {
    for (const pair of url.slice(at + 1).split('&')) {
      if (pair === '') continue;
      const equals = pair.indexOf('=');
      let name: string;
      let value: string;
      try {
        name = decodeURIComponent(equals < 0 ? pair : pair.slice(0, equals));
        value = equals < 0 ? '' : decodeURIComponent(pair.slice(equals + 1));
      } catch {
        return undefined;
      }
      const earlier = query[name];
      query[name] =
        earlier === undefined || earlier === null
          ? value
          : Array.isArray(earlier)
            ? [...earlier, value]
            : [earlier, value];
    }
  }
  return path.startsWith('/') ? { path, query } : undefined;
}

/** A GET of a bucket (path style: `/<bucket>` or `/<bucket>/`) that is not one of its settings. */
function isListing(method: string, path: string, query: QueryParameterBag): boolean {
  if (method !== 'GET' || !/^\/[^/]+\/?$/.test(path)) return false;
  return !Object.keys(query).some((name) => bucketSettings.has(name));
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
