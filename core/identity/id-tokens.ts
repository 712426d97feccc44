/**
 * Single sign-on: an ID token of the configured identity provider stands in for an API key on the
 * routes that accept one (catalog/routes.ts, `acceptsIdToken`). The token's `email` claim names the
 * user; the service creates no one on the fly, so an address it does not know is refused.
 */
import { UnauthorizedError } from '../errors';
import type { IdentityDeps, Principal } from './service';

/** What a verified ID token says about its holder. */
export interface VerifiedIdToken {
  /** The provider's stable id of the user (`sub`). */
  subject: string;
  email?: string;
}

/**
 * Port. Verifies signature (a key of the provider's JWKS, an asymmetric algorithm), issuer,
 * audience and expiry; throws UnauthorizedError naming what failed. A provider that cannot be
 * reached is an internal failure (a plain Error), not the caller's.
 */
export interface IdTokenVerifier {
  verify(token: string): Promise<VerifiedIdToken>;
}

/** The principal of an ID token, acting as the user with the token's e-mail address. */
export async function principalOfIdToken(
  deps: IdentityDeps,
  verifier: IdTokenVerifier,
  token: string,
): Promise<Principal> {
  const verified = await verifier.verify(token);
  if (!verified.email) throw new UnauthorizedError('The ID token has no email claim');
  const user = await deps.store.findUserByEmail(verified.email);
  if (!user) throw new UnauthorizedError('No user of this service has the e-mail address of the ID token');
  // Not a key: the marker says which sign-on acted, as webhooks and forms say which of theirs did.
  return { user, apiKeyId: `sso:${verified.subject}` };
}

/** The token of an `Authorization: Bearer <token>` header (scheme in any case), if there is one. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return match?.[1];
}
