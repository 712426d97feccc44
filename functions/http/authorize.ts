/**
 * Who is calling a route: the admin key, an API key, or (single sign-on on) an ID token, with the
 * request's token drawn. Apart from ./route.ts, so the routes that take no credentials
 * (`publicRoute`) carry none of it.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { acceptsIdToken, type RouteDefinition } from '../../catalog/route-definition';
import { readSwitches } from '../../core/config/switches';
import { UnauthorizedError } from '../../core/errors';
import { bearerTokenOf, principalOfIdToken } from '../../core/identity/id-tokens';
import { findApiKey, type Principal } from '../../core/identity/service';
import { identityDeps, idTokenVerifier } from '../wiring/identity';
import { requireAdminKey } from './admin-key';
import { admitPrincipal, authenticateAndAdmit, type RequestLimits } from './limits';

/** Who is calling, if the route takes credentials; throws when they are missing or wrong. */
export type Authorizer = (
  route: RouteDefinition,
  headers: Record<string, string>,
  limits: RequestLimits,
  logger: Logger,
) => Promise<Principal | undefined>;

/** Admin key, or API key with the request's token drawn (see functions/http/limits.ts). */
export async function authorize(
  route: RouteDefinition,
  headers: Record<string, string>,
  limits: RequestLimits,
  logger: Logger,
): Promise<Principal | undefined> {
  if (route.auth === 'admin') {
    await requireAdminKey(headers['x-admin-key']);
    return undefined;
  }
  if (route.auth === 'apiKey') {
    const principal = await authenticate(route, headers, limits);
    logger.appendKeys({ userId: principal.user.id });
    return principal;
  }
  return undefined;
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
  const takesIdToken = readSwitches().ssoEnabled && acceptsIdToken(route);
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
  const apiKey = await findApiKey(identityDeps(), headers['x-api-key']);
  return authenticateAndAdmit(route, apiKey, headers, limits);
}
