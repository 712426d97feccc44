/**
 * Rate limits at the edge of every route: which bucket a request draws from (from the route
 * table), the X-RateLimit-* headers of that bucket on every answer, errors included, the 429, and
 * failed authentication counted per source address.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { RouteDefinition } from '../../catalog/routes';
import { isServiceError, RateLimitExceededError } from '../../core/errors';
import { type Principal, principalOf } from '../../core/identity/service';
import type { ApiKeyRecord, Plan, User } from '../../core/identity/types';
import { BlockedSources } from '../../core/limits/blocked-sources';
import {
  type Admission,
  admitManualRun,
  limitOwnerOf,
  ownLimitsOf,
  refundCharge,
  requireUsageLeft,
  takeAuthFailure,
  takeToken,
} from '../../core/limits/service';
import type { BucketKind, LimitOwner } from '../../core/limits/types';
import { identityDeps } from '../wiring/identity';
import { baseChargePerRunInUsd, limitsConfig, limitsDeps } from '../wiring/limits';

/** What one request drew, kept so that whatever it is answered carries the bucket's headers. */
export class RequestLimits {
  owner?: LimitOwner;
  admission?: Admission;
  private runStarted = false;

  /** Called once the run is on its way: its base charge is kept whatever happens next. */
  keepCharge(): void {
    this.runStarted = true;
  }

  /** What the run counted at admission, for its request (Finalize adds the rest of its cost). */
  usage(): { owner: string; chargedUsd: number } | undefined {
    if (!this.owner) return undefined;
    return { owner: this.owner.key, chargedUsd: this.admission?.charged?.usd ?? 0 };
  }

  /** A request that started no run gets its base charge back. */
  async refundUnlessStarted(): Promise<void> {
    if (this.runStarted || !this.admission?.charged) return;
    const admission = this.admission;
    this.admission = { ...admission, charged: undefined };
    await refundCharge(limitsDeps(), admission);
  }

  headers(): Record<string, string> {
    if (!this.admission) return {};
    const { state } = this.admission;
    return {
      'X-RateLimit-Limit': String(state.limit),
      'X-RateLimit-Remaining': String(state.remaining),
      'X-RateLimit-Reset': state.resetAt,
    };
  }
}

/** `sync`, or `async` with `X-Execution-Mode: async`; a streamed run draws from `sync`. */
export function executionBucketOf(headers: Record<string, string>): 'sync' | 'async' {
  return headers['x-execution-mode']?.trim().toLowerCase() === 'async' ? 'async' : 'sync';
}

/**
 * Draws the token of a key-authenticated request: from `api`, from the execution bucket of its
 * mode, or (a manual run) nothing, with the `sync` bucket shown. An execution's base charge is
 * counted with its token; one past the usage limit is refused (402) and its charge refunded.
 */
export async function admitRequest(
  route: RouteDefinition,
  principal: Principal,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<void> {
  if (route.rateLimit === 'manual') {
    const owner = await ownerFor(principal.user, limits);
    limits.admission = await admitManualRun(limitsDeps(), owner, baseChargePerRunInUsd());
    return requireUsageLeftOrRefund(owner, limits);
  }
  const kind = route.rateLimit === 'execution' ? executionBucketOf(headers) : 'api';
  await admitExecutionOrCall(principal.user, kind, limits);
}

/** Draws a token from `kind` for the user's owner; 429 when none is left, 402 for a run past the usage limit. */
export async function admitExecutionOrCall(
  user: User,
  kind: BucketKind,
  limits: RequestLimits,
): Promise<LimitOwner> {
  const owner = await ownerFor(user, limits);
  limits.admission = await takeToken(limitsDeps(), owner, kind, kind === 'api' ? 0 : baseChargePerRunInUsd());
  if (!limits.admission.admitted) throw rateLimitError(limits.admission);
  if (kind !== 'api') await requireUsageLeftOrRefund(owner, limits);
  return owner;
}

/** Plans of users in no organization, as last seen: the bucket a guarded take tries first. */
const planHints = new Map<string, Plan>();

function rememberPlan(user: User): void {
  planHints.delete(user.id);
  if (user.organizationId) return;
  if (planHints.size >= 10_000) planHints.delete(planHints.keys().next().value as string);
  planHints.set(user.id, user.plan);
}

/**
 * Authenticates a key's request and draws its token. For a user seen before (in no
 * organization), one write does both: the take is guarded by the plan last seen, and answers the
 * user as stored. Otherwise (or when the guard no longer holds: nothing was taken then) the user
 * is read first and the owner resolved, as for any request.
 */
export async function authenticateAndAdmit(
  route: RouteDefinition,
  apiKey: ApiKeyRecord,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<Principal> {
  const plan = planHints.get(apiKey.userId);
  if (plan !== undefined && route.rateLimit !== 'manual') {
    const deps = limitsDeps();
    const kind = route.rateLimit === 'execution' ? executionBucketOf(headers) : 'api';
    const assumed = ownLimitsOf(deps, { id: apiKey.userId, plan } as User);
    const admission = await takeToken(deps, assumed, kind, kind === 'api' ? 0 : baseChargePerRunInUsd(), {
      plan,
    });
    const user = admission.user;
    if (user && user.plan === plan && !user.organizationId) {
      limits.owner = ownLimitsOf(deps, user);
      limits.admission = admission;
      if (!admission.admitted) throw rateLimitError(admission);
      if (kind !== 'api') await requireUsageLeftOrRefund(limits.owner, limits);
      return { user, apiKeyId: apiKey.id };
    }
    planHints.delete(apiKey.userId);
  }
  const principal = await principalOf(identityDeps(), apiKey);
  rememberPlan(principal.user);
  await admitRequest(route, principal, headers, limits);
  return principal;
}

async function requireUsageLeftOrRefund(owner: LimitOwner, limits: RequestLimits): Promise<void> {
  try {
    requireUsageLeft(owner, limits.admission?.periodCostUsd ?? 0, new Date());
  } catch (error) {
    await limits.refundUnlessStarted();
    throw error;
  }
}

async function ownerFor(user: User, limits: RequestLimits): Promise<LimitOwner> {
  limits.owner ??= await limitOwnerOf(limitsDeps(), user);
  return limits.owner;
}

function rateLimitError(admission: Admission): RateLimitExceededError {
  const what =
    admission.bucket === 'authFailures'
      ? 'failed authentications from this address'
      : `the ${admission.bucket} bucket`;
  return new RateLimitExceededError(
    admission.state.retryAfterInSeconds ?? 1,
    `Rate limit exceeded: no tokens left in ${what}; retry after ${admission.state.retryAfterInSeconds ?? 1} s`,
  );
}

const blockedSources = new BlockedSources();

function sourceOf(event: APIGatewayProxyEvent): string {
  return event.requestContext?.identity?.sourceIp || 'unknown';
}

/** A source address out of failed authentications is refused before anything else is done. */
export function refuseBlockedSource(event: APIGatewayProxyEvent, limits: RequestLimits): void {
  const nowInMs = Date.now();
  const until = blockedSources.blockedUntil(sourceOf(event), nowInMs);
  if (until === undefined) return;
  const retryAfterInSeconds = Math.max(1, Math.ceil((until - nowInMs) / 1000));
  limits.admission = {
    bucket: 'authFailures',
    admitted: false,
    state: {
      limit: limitsConfig().authFailures.requestsPerMinute,
      remaining: 0,
      resetAt: new Date(until).toISOString(),
      retryAfterInSeconds,
    },
    periodCostUsd: 0,
  };
  throw new RateLimitExceededError(
    retryAfterInSeconds,
    `Too many failed authentications from this address; retry after ${retryAfterInSeconds} s`,
  );
}

/**
 * A 401 counts against its source address; once the address is out of tokens, the answer is a
 * 429 instead, and the address is refused up front until its next token.
 */
export async function countFailedAuthentication(
  error: unknown,
  event: APIGatewayProxyEvent,
  limits: RequestLimits,
): Promise<unknown> {
  if (!isServiceError(error) || error.statusCode !== 401) return error;
  const source = sourceOf(event);
  limits.admission = await takeAuthFailure(limitsDeps(), source);
  if (limits.admission.admitted) return error;
  blockedSources.block(source, Date.parse(limits.admission.state.resetAt));
  return rateLimitError(limits.admission);
}
