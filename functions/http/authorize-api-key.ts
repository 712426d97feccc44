/**
 * Who is calling a route that takes no ID token (the runs: execute): the admin key, or an API key
 * with the request's token drawn. Apart from ./authorize.ts, which adds ID tokens, so that such a
 * route's bundle carries none of the ID token code.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { RouteDefinition } from '../../catalog/route-definition';
import { findApiKey, type Principal } from '../../core/identity/service';
import { identityDeps } from '../wiring/identity';
import { requireAdminKey } from './admin-key';
import { authenticateAndAdmit, type RequestLimits } from './limits';

/** Who is calling, if the route takes credentials; throws when they are missing or wrong. */
export type Authorizer = (
  route: RouteDefinition,
  headers: Record<string, string>,
  limits: RequestLimits,
  logger: Logger,
) => Promise<Principal | undefined>;

/** Who holds the credentials of a route that takes a user's; the request's token is drawn. */
export type Authenticator = (
  route: RouteDefinition,
  headers: Record<string, string>,
  limits: RequestLimits,
) => Promise<Principal>;

/** Admin key for admin routes; for user routes, whoever `authenticate` finds. */
export async function authorizeBy(
  authenticate: Authenticator,
  ...[route, headers, limits, logger]: Parameters<Authorizer>
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

/** The user of the API key sent, with the request's token drawn (see functions/http/limits.ts). */
export async function authenticateApiKey(
  ...[route, headers, limits]: Parameters<Authenticator>
): Promise<Principal> {
  return authenticateAndAdmit(route, await findApiKey(identityDeps(), headers['x-api-key']), headers, limits);
}

/** Admin key, or API key with the request's token drawn. */
export async function authorizeApiKey(...request: Parameters<Authorizer>): Promise<Principal | undefined> {
  return authorizeBy(authenticateApiKey, ...request);
}
