/** What model blocks share: their time limit, and what a call used and cost. */
import type { ModelUsage } from '../engine/cost';
import type { ModelRequest, PricingTable, TokenCounts } from '../engine/types';
import { costOfUsage, type UsageCost } from './pricing';

/**
 * A model request that may also carry the run's abort signal: the gateway stops the call when the
 * run no longer needs it (the run failed or ended), besides its own time limit.
 */
export interface ModelCallRequest extends ModelRequest {
  signal?: AbortSignal;
}

export const defaultModelTimeoutInMs = 60_000;
/** Longer than this could not finish inside one Lambda invocation anyway. */
const maxModelTimeoutInMs = 15 * 60 * 1000;

/** The time limit a block asks for in `timeoutMs` (number or numeric text), else 60 s. */
export function modelTimeoutInMs(configured: unknown): number {
  const asked = typeof configured === 'string' && configured.trim() !== '' ? Number(configured) : configured;
  if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0) return defaultModelTimeoutInMs;
  return Math.min(Math.ceil(asked), maxModelTimeoutInMs);
}

export interface CallUsage {
  /** For the run's cost and the block's span. */
  usage: ModelUsage;
  /** For the block's output. */
  cost: UsageCost;
  /** False when no price is known for the model: the call cost 0, its tokens still count. */
  priced: boolean;
}

/**
 * What one call used and cost, under the model the block asked for (the name its author knows and
 * the run's cost is keyed by). The price is that model's, else that of the model the provider
 * reported (e.g. a dated snapshot of an alias).
 */
export function usageOfCall(
  model: string,
  tokens: TokenCounts,
  pricing: PricingTable | undefined,
  reportedModel?: string,
): CallUsage {
  const price =
    pricing?.priceOf(model) ??
    (reportedModel && reportedModel !== model ? pricing?.priceOf(reportedModel) : undefined);
  const cost = costOfUsage(price, tokens);
  return {
    usage: { model, input: cost.input, output: cost.output, tokens: { ...tokens } },
    cost,
    priced: price !== undefined,
  };
}
