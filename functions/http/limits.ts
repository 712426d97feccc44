/**
 * Rate limits at the edge of every route: which bucket a request draws from (from the route
 * table), the X-RateLimit-* headers of that bucket on every answer, errors included, the 429, and
 * failed authentication counted per source address.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { RouteDefinition } from '../../catalog/routes';
import { isServiceError } from '../../core/errors';
import { type Principal, principalOf } from '../../core/identity/service';
import type { ApiKeyRecord, Plan, User } from '../../core/identity/types';
import { BoundedMap } from '../../core/bounded-map';
import { BlockedSources } from '../../core/limits/blocked-sources';
import {
  type AdmissionResult,
  admitKnownUser,
  admitOwner,
  blockedSourceRefusal,
  type RequestBucket,
  rateLimitError,
} from '../../core/limits/admission';
import {
  type Admission,
  limitOwnerOf,
  formFailuresLeft,
  takeAuthFailure,
  takeFormFailure,
  takeFormSource,
} from '../../core/limits/service';
import type { LimitOwner } from '../../core/limits/types';
import { refundTicket, type RunTicket } from '../../core/runs/admission';
import { identityDeps } from '../wiring/identity';
import { sourceAddressOf } from './source-address';
import { baseChargePerRunInUsd, limitsConfig, limitsDeps } from '../wiring/limits';

/**
 * What one request drew, kept so that whatever it is answered carries the bucket's headers; as the
 * ticket of its run (core/runs/admission.ts), it holds the run's base charge until a run keeps it.
 */
export class RequestLimits implements RunTicket {
  owner?: LimitOwner;
  admission?: Admission;
  /** The bucket the answer's headers show, when it is not the one the run drew from. */
  shownAdmission?: Admission;

  /** A request that started no run gets its base charge back. */
  async refundUnlessStarted(): Promise<void> {
    if (!this.admission?.charged) return;
    await refundTicket({ limits: limitsDeps() }, this);
  }

  headers(): Record<string, string> {
    const shown = this.shownAdmission ?? this.admission;
    if (!shown) return {};
    const { state } = shown;
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

/** What a key-authenticated request draws from, as the route table says. */
function requestBucketOf(route: RouteDefinition, headers: Record<string, string>): RequestBucket {
  if (route.rateLimit === 'manual') return 'manual';
  return route.rateLimit === 'execution' ? executionBucketOf(headers) : 'api';
}

/** Keeps what the request drew (for its headers and its run), then throws its refusal, if any. */
function record(limits: RequestLimits, result: AdmissionResult): void {
  limits.owner = result.owner;
  limits.admission = result.admission;
  if (result.refusal) throw result.refusal;
}

/** Plans of users in no organization, as last seen: the bucket a guarded take tries first. */
const planHints = new BoundedMap<string, Plan>();

function rememberPlan(user: User): void {
  if (user.organizationId) planHints.delete(user.id);
  else planHints.set(user.id, user.plan);
}

/**
 * Authenticates a key's request and draws its token. For a user seen before (in no
 * organization), one write does both (core/limits/admission.ts). Otherwise, or when what was seen
 * no longer holds, the user is read first and the owner resolved.
 */
export async function authenticateAndAdmit(
  route: RouteDefinition,
  apiKey: ApiKeyRecord,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<Principal> {
  const deps = limitsDeps();
  const bucket = requestBucketOf(route, headers);
  const plan = planHints.get(apiKey.userId);
  if (plan !== undefined && bucket !== 'manual') {
    const known = await admitKnownUser(deps, apiKey.userId, plan, bucket, baseChargePerRunInUsd());
    if (known) {
      record(limits, known);
      return { user: known.user, apiKeyId: apiKey.id };
    }
    planHints.delete(apiKey.userId);
  }
  const principal = await principalOf(identityDeps(), apiKey);
  await admitPrincipal(route, principal, headers, limits);
  return principal;
}

/** Draws the token of a request whose user is known already (read with its limits): an ID token's. */
export async function admitPrincipal(
  route: RouteDefinition,
  principal: Principal,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<void> {
  const deps = limitsDeps();
  rememberPlan(principal.user);
  const owner = await limitOwnerOf(deps, principal.user);
  record(limits, await admitOwner(deps, owner, requestBucketOf(route, headers), baseChargePerRunInUsd()));
}

/**
 * A form access attempt (a submission, or a config read with a password or address) takes a token
 * of its source address; at a password or e-mail form it is refused, before anything is checked,
 * while the form's failed attempts are out. The answer's X-RateLimit-* headers are the source's
 * bucket, whatever the run draws from the form's creator later (strangers do not see the creator's
 * limits).
 */
export async function admitFormAttempt(
  form: { id: string; authType: string },
  event: APIGatewayProxyEvent,
  limits: RequestLimits,
): Promise<void> {
  const deps = limitsDeps();
  const bySource = await takeFormSource(deps, sourceOf(event));
  limits.shownAdmission = bySource;
  if (!bySource.admitted) throw rateLimitError(bySource);
  if (form.authType === 'public') return;
  const failures = await formFailuresLeft(deps, form.id);
  if (!failures.admitted) throw rateLimitError(failures);
}

/** A wrong password or an address the list does not admit takes a token of its form. */
export async function countFormFailure(formId: string): Promise<void> {
  await takeFormFailure(limitsDeps(), formId);
}

const blockedSources = new BlockedSources();

const sourceOf = (event: APIGatewayProxyEvent) => sourceAddressOf(event);

/** A source address out of failed authentications is refused before anything else is done. */
export function refuseBlockedSource(event: APIGatewayProxyEvent, limits: RequestLimits): void {
  const nowInMs = Date.now();
  const until = blockedSources.blockedUntil(sourceOf(event), nowInMs);
  if (until === undefined) return;
  const { admission, refusal } = blockedSourceRefusal({ config: limitsConfig() }, until, nowInMs);
  limits.admission = admission;
  throw refusal;
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
  limits.shownAdmission = undefined;
  blockedSources.block(source, Date.parse(limits.admission.state.resetAt));
  return rateLimitError(limits.admission);
}
