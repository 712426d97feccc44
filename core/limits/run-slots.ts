/**
 * The cap on a workspace's runs in progress: each run holds a slot from its admission until its
 * Finalize gives it back. A slot carries its expiry (the run's admission plus the longest it can
 * run), so a run whose Finalize never came (a stopped execution, a crash) cannot hold it forever:
 * a refused claim first drops the expired slots, then tries once more.
 */
import { RunsInProgressLimitError } from '../errors';
import type { Plan } from '../identity/types';

/** Port: the slots of each workspace's runs in progress. */
export interface RunSlotStore {
  /**
   * Adds the run's slot if the workspace holds fewer than `cap`, in one conditional write; a run
   * that holds its slot already (a repeated claim) is admitted again. False when at the cap.
   */
  add(workspaceId: string, executionId: string, expiresAtInMs: number, cap: number): Promise<boolean>;
  /** Drops the slots expired at `nowInMs`; answers how many were dropped. */
  prune(workspaceId: string, nowInMs: number): Promise<number>;
  /** Gives back the run's slot; giving back one that is not held does nothing. */
  remove(workspaceId: string, executionId: string): Promise<void>;
}

export interface RunSlotDeps {
  slots: RunSlotStore;
  runsInProgress: Record<Plan, number>;
  now: () => Date;
}

/**
 * How long a run may hold its slot, by how it runs: a sync run lives within its Express execution
 * (5 minutes at most), a streamed one within the execute route's function (15 minutes), an async
 * one on the Standard machine, which has no end of its own: a day bounds what a lost Finalize
 * costs, and a run waiting longer than that stops counting.
 */
export const slotLifetimeInMs = {
  sync: 5 * 60_000,
  stream: 15 * 60_000,
  async: 24 * 3600_000,
} as const;

export type SlotLifetime = keyof typeof slotLifetimeInMs;

/** What a refused run is told to wait: runs mostly end within seconds, and any that ends frees a slot. */
export const runsInProgressRetryAfterInSeconds = 5;

/** Takes a slot for the run, or throws RunsInProgressLimitError (429) naming the cap. */
export async function claimRunSlot(
  deps: RunSlotDeps,
  run: { workspaceId: string; executionId: string; plan: Plan; lifetime: SlotLifetime },
): Promise<void> {
  const cap = deps.runsInProgress[run.plan];
  const nowInMs = deps.now().getTime();
  const expiresAtInMs = nowInMs + slotLifetimeInMs[run.lifetime];
  if (await deps.slots.add(run.workspaceId, run.executionId, expiresAtInMs, cap)) return;
  const pruned = await deps.slots.prune(run.workspaceId, nowInMs);
  if (pruned > 0 && (await deps.slots.add(run.workspaceId, run.executionId, expiresAtInMs, cap))) return;
  throw new RunsInProgressLimitError(
    runsInProgressRetryAfterInSeconds,
    `Too many runs in progress: this workspace has ${cap} runs in progress, the cap of the ${run.plan} plan; a new run is admitted once one of them ends (retry after ${runsInProgressRetryAfterInSeconds} s)`,
  );
}

/** Gives back a run's slot (Finalize, a cancelled or dead-lettered job, a run that did not start). */
export async function releaseRunSlot(
  deps: { slots: Pick<RunSlotStore, 'remove'> },
  run: { workspaceId: string; executionId: string },
): Promise<void> {
  await deps.slots.remove(run.workspaceId, run.executionId);
}
