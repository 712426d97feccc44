/**
 * IdTokenVerifier with jose: the provider's discovery document is fetched once, its JWKS through
 * jose's remote key set (cached for the process, fetched again only for a key id it has not seen,
 * at most once per cooldown), and every token checked for signature, issuer, audience and expiry.
 *
 * These fetches do not go through the outbound guard (core/net). The issuer is the operator's own
 * configuration, not something a user of the service can choose, and providers of self-hosted
 * installs often live on the intranet; admitting one through OUTBOUND_ALLOWLIST would also open
 * it to workflows' api blocks, which is exactly what the guard is for. What is required instead is
 * https (plain http only to a loopback address, for local development).
 *
 * jose is loaded by the first token: it is kept out of the bundles and installed beside the routes
 * that take ID tokens only where single sign-on is deployed (lib/bundling.ts).
 */
import type { JWTPayload } from 'jose';
import { UnauthorizedError } from '../../core/errors';
import type { IdTokenVerifier, VerifiedIdToken } from '../../core/identity/id-tokens';
import { checkHost } from '../../core/net/address-policy';

type Jose = typeof import('jose');

let jose: Promise<Jose> | undefined;

function loadJose(): Promise<Jose> {
  jose ??= import('jose');
  return jose;
}

export interface OidcProviderConfig {
  /** `OIDC_ISSUER`: compared exactly with the discovery document's `issuer` and every token's `iss`. */
  issuer: string;
  /** `OIDC_AUDIENCE`: the client id the tokens must be issued to (`aud`). */
  audience: string;
  fetchTimeoutInMs?: number;
  /** Leeway for `exp`, `nbf` and `iat` against clocks a little apart. */
  clockToleranceInSeconds?: number;
  /** Tests: the time tokens are checked at. */
  now?: () => Date;
}

/** Asymmetric only: a symmetric algorithm would make the client id's secret a signing key. */
const allowedAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
}

export class JoseIdTokenVerifier implements IdTokenVerifier {
  private keys?: Promise<ReturnType<Jose['createRemoteJWKSet']>>;

  constructor(private readonly config: OidcProviderConfig) {
    requireSecureUrl(config.issuer, 'OIDC_ISSUER');
    if (!config.audience) throw new Error('OIDC_AUDIENCE is empty: set it to the client id of this service');
  }

  async verify(token: string): Promise<VerifiedIdToken> {
    const keys = await this.keySet();
    const { jwtVerify, errors } = await loadJose();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: allowedAlgorithms,
        requiredClaims: ['sub', 'exp', 'iat'],
        clockTolerance: this.config.clockToleranceInSeconds ?? 30,
        ...(this.config.now ? { currentDate: this.config.now() } : {}),
      }));
    } catch (error) {
      throw refusalOf(error, errors);
    }
    return {
      subject: String(payload.sub),
      ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
    };
  }

  /** Fetched on first use; a failed discovery is tried again by the next request. */
  private keySet(): Promise<ReturnType<Jose['createRemoteJWKSet']>> {
    this.keys ??= Promise.all([this.discover(), loadJose()]).then(([document, { createRemoteJWKSet }]) =>
      createRemoteJWKSet(new URL(document.jwks_uri), {
        timeoutDuration: this.timeoutInMs(),
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      }),
    );
    this.keys.catch(() => {
      this.keys = undefined;
    });
    return this.keys;
  }

  private async discover(): Promise<DiscoveryDocument> {
    const url = `${this.config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    const response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutInMs()) });
    if (!response.ok) throw new Error(`OIDC discovery at ${url} answered ${response.status}`);
    const document = (await response.json()) as Partial<DiscoveryDocument>;
    if (document.issuer !== this.config.issuer) {
      throw new Error(
        `OIDC discovery at ${url} names issuer ${String(document.issuer)}, not OIDC_ISSUER ${this.config.issuer}`,
      );
    }
    if (typeof document.jwks_uri !== 'string') throw new Error(`OIDC discovery at ${url} has no jwks_uri`);
    requireSecureUrl(document.jwks_uri, 'The jwks_uri of the OIDC discovery document');
    return { issuer: document.issuer, jwks_uri: document.jwks_uri };
  }

  private timeoutInMs(): number {
    return this.config.fetchTimeoutInMs ?? 5000;
  }
}

/** https, or http to a loopback address (a provider on the developer's machine). */
function requireSecureUrl(text: string, what: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${what} is not a URL: ${text}`);
  }
  if (url.protocol === 'https:') return;
  const verdict = checkHost(url.hostname);
  if (url.protocol === 'http:' && !verdict.allowed && verdict.category === 'loopback') return;
  throw new Error(`${what} must be an https URL (plain http only to a loopback address): ${text}`);
}

/** The caller's 401 for a token that failed a check; anything else (the provider down) stays internal. */
function refusalOf(error: unknown, errors: Jose['errors']): Error {
  const refuse = (message: string) => new UnauthorizedError(message, { cause: error });
  if (error instanceof errors.JWTExpired) return refuse('The ID token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss')
      return refuse('The ID token was not issued by the configured identity provider');
    if (error.claim === 'aud') return refuse('The ID token was not issued for this service (audience)');
    return refuse(`The ID token's ${error.claim} claim is not valid: ${error.reason}`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refuse('The ID token is not signed with an allowed algorithm');
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return refuse("The ID token's signature does not verify with the identity provider's keys");
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return refuse('The bearer token is not a valid ID token');
  }
  return error instanceof Error ? error : new Error(String(error));
}
