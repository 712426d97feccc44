/**
 * Who is calling a route: the admin key, an API key, or (single sign-on on) an ID token, with the
 * request's token drawn. Apart from ./route.ts, so the routes that take no credentials
 * (`publicRoute`) carry none of it; routes that take no ID token use ./authorize-api-key.ts.
 */
import { acceptsIdToken, type RouteDefinition } from '../../catalog/route-definition';
import { UnauthorizedError } from '../../core/errors';
import { bearerTokenOf, principalOfIdToken } from '../../core/identity/id-tokens';
import type { Principal } from '../../core/identity/service';
import { identityDeps } from '../wiring/identity';
import { idTokenVerifier } from '../wiring/id-tokens';
import { type Authorizer, authenticateApiKey, authorizeBy } from './authorize-api-key';
import { admitPrincipal, type RequestLimits } from './limits';
import { switchesSetting } from '../settings';

export type { Authorizer };

/** Admin key, or API key (or ID token) with the request's token drawn (see functions/http/limits.ts). */
export async function authorize(...request: Parameters<Authorizer>): Promise<Principal | undefined> {
  return authorizeBy(authenticate, ...request);
}

/**
 * An API key, or (single sign-on on, a route that takes one, no key sent) an ID token; either way
 * the request draws from its user's bucket.
 */
async function authenticate(
  route: RouteDefinition,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<Principal> {
  const idToken = bearerTokenOf(headers.authorization);
  const takesIdToken = switchesSetting().ssoEnabled && acceptsIdToken(route);
  if (takesIdToken && idToken && !headers['x-api-key']) {
    const principal = await principalOfIdToken(identityDeps(), idTokenVerifier(), idToken);
    await admitPrincipal(route, principal, headers, limits);
    return principal;
  }
  if (takesIdToken && !headers['x-api-key']) {
    throw new UnauthorizedError(
      'Missing credentials: send an API key in the x-api-key header or an ID token in Authorization: Bearer',
    );
  }
  return authenticateApiKey(route, headers, limits);
}
