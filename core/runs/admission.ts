/**
 * Admitting a run, one protocol for every trigger: the run's rate token and base charge (taken
 * with its request's authentication, or here), its preparation, a slot among its workspace's runs
 * in progress, then its start. Whatever fails before the start gives the charge back; a run that
 * is handed over keeps it, and gives its slot back when it ends (Finalize) or cannot have started.
 */
import type { IdentityStore, User } from '../identity/types';
import { admitOwner } from '../limits/admission';
import { claimRunSlot, releaseRunSlot, type RunSlotStore, type SlotLifetime } from '../limits/run-slots';
import {
  type Admission,
  admitBackgroundRun,
  type LimitsDeps,
  limitOwnerOf,
  refundCharge,
} from '../limits/service';
import type { LimitOwner } from '../limits/types';
import type { ExecutionRequest } from './types';

export interface RunAdmissionDeps {
  limits: LimitsDeps;
  slots: RunSlotStore;
  /** USD charged to every run when it is admitted (Finalize adds its model costs). */
  baseChargeUsd: number;
}

/**
 * What a request drew for its run: whose limits apply and the token it took (with the run's base
 * charge). The request keeps it, to show the bucket's headers whatever it is answered; the charge
 * still in it when the request ends was not kept by a run, and goes back (`refundTicket`).
 */
export interface RunTicket {
  owner?: LimitOwner;
  admission?: Admission;
}

/** Who pays for a run, and what its admission counted already. */
export interface RunUsage {
  owner: string;
  chargedUsd: number;
}

export interface RunSteps<T> {
  /** The run's access, graph and input, checked and made an execution request. */
  prepare(usage: RunUsage): Promise<ExecutionRequest>;
  /** Hands the run over: the state machine (sync), the queue (async), or this process (streamed). */
  start(request: ExecutionRequest): Promise<T>;
}

export interface RunOptions {
  /**
   * The user whose async bucket the run draws from here (a webhook call, a form submission); absent,
   * the ticket holds the token its request took when it was authenticated.
   */
  drawFor?: User;
  /** A run whose engine runs in the request's process (its slot lives as long as that may). */
  streamed?: boolean;
}

/**
 * Admits and starts one run; every trigger that starts a run on request goes through here, so none
 * can forget a step. Refusals: 429 (no token, or the workspace at its cap on runs in progress),
 * 402 (usage limit), and whatever the preparation refuses; none of them keeps a charge.
 */
export async function admitRun<T>(
  deps: RunAdmissionDeps,
  ticket: RunTicket,
  steps: RunSteps<T>,
  options: RunOptions = {},
): Promise<T> {
  if (options.drawFor) await drawToken(deps, ticket, options.drawFor);
  const owner = ticket.owner;
  if (!owner) throw new Error('A run was started without the limits of its owner');
  let request: ExecutionRequest;
  try {
    request = await steps.prepare({ owner: owner.key, chargedUsd: ticket.admission?.charged?.usd ?? 0 });
    await claimRunSlot(slotDeps(deps), {
      ...slotOf(request),
      plan: owner.plan,
      lifetime: lifetimeOf(request, options),
    });
  } catch (error) {
    await refundTicket(deps, ticket);
    throw error;
  }
  keepCharge(ticket);
  try {
    return await steps.start(request);
  } catch (error) {
    // A sync run's Express execution may go on after its caller gave up; its Finalize frees the slot.
    if (request.mode === 'async' || options.streamed) await releaseRunSlot(deps, slotOf(request));
    throw error;
  }
}

/** Takes the run's token from the user's async bucket, kept on the ticket; throws its refusal. */
async function drawToken(deps: RunAdmissionDeps, ticket: RunTicket, user: User): Promise<void> {
  const result = await admitOwner(
    deps.limits,
    await limitOwnerOf(deps.limits, user),
    'async',
    deps.baseChargeUsd,
  );
  ticket.owner = result.owner;
  ticket.admission = result.admission;
  if (result.refusal) throw result.refusal;
}

/** Gives back the charge a ticket still holds: its request started no run. */
export async function refundTicket(deps: Pick<RunAdmissionDeps, 'limits'>, ticket: RunTicket): Promise<void> {
  const admission = ticket.admission;
  if (!admission?.charged) return;
  ticket.admission = { ...admission, charged: undefined };
  await refundCharge(deps.limits, admission);
}

/** The run is on its way: its base charge stays whatever happens next. */
function keepCharge(ticket: RunTicket): void {
  if (ticket.admission?.charged) ticket.admission = { ...ticket.admission, charged: undefined };
}

function lifetimeOf(request: ExecutionRequest, options: RunOptions): SlotLifetime {
  if (request.mode === 'async') return 'async';
  return options.streamed ? 'stream' : 'sync';
}

const slotOf = (request: Pick<ExecutionRequest, 'workspaceId' | 'executionId'>) => ({
  workspaceId: request.workspaceId,
  executionId: request.executionId,
});

const slotDeps = (deps: RunAdmissionDeps) => ({
  slots: deps.slots,
  runsInProgress: deps.limits.config.runsInProgress,
  now: deps.limits.now,
});

export interface FireAdmissionDeps extends RunAdmissionDeps {
  identity: Pick<IdentityStore, 'getUser'>;
}

/**
 * Admits the run of a schedule's fire, which no request starts: no token, the owner's usage limit
 * (UsageLimitExceededError) and the workspace's cap (RunsInProgressLimitError) checked, and the
 * base charge counted when the run is logged. Answers whose usage the run goes to.
 */
export async function admitFire(
  deps: FireAdmissionDeps,
  userId: string,
  run: { workspaceId: string; executionId: string },
): Promise<string> {
  const user = await deps.identity.getUser(userId);
  if (!user) throw new Error(`User ${userId} of a schedule is missing`);
  const owner = await admitBackgroundRun(deps.limits, user);
  await claimRunSlot(slotDeps(deps), { ...run, plan: owner.plan, lifetime: 'async' });
  return owner.key;
}
