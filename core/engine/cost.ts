/**
 * The run's cost object (USD). Model blocks report what each call used; the run adds it up per model.
 */
import type { CostSummary, ModelCost, TokenCounts, TraceSpan } from './types';
import { roundedUsd } from '../money';

/** What one model call used and cost. */
export interface ModelUsage {
  model: string;
  /** USD for the prompt tokens. */
  input: number;
  /** USD for the completion tokens. */
  output: number;
  tokens: TokenCounts;
}

export function zeroTokens(): TokenCounts {
  return { prompt: 0, completion: 0, total: 0 };
}

export function emptyCost(): CostSummary {
  return { total: 0, tokens: zeroTokens(), models: {} };
}

function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total };
}

export function modelCostOf(usage: ModelUsage): ModelCost {
  return {
    input: usage.input,
    output: usage.output,
    total: roundedUsd(usage.input + usage.output),
    tokens: { ...usage.tokens },
  };
}

/** A new summary with one model call added. */
export function addModelUsage(summary: CostSummary, usage: ModelUsage): CostSummary {
  const previous = summary.models[usage.model];
  const call = modelCostOf(usage);
  const model: ModelCost = previous
    ? {
        input: roundedUsd(previous.input + call.input),
        output: roundedUsd(previous.output + call.output),
        total: roundedUsd(previous.total + call.total),
        tokens: addTokens(previous.tokens, call.tokens),
      }
    : call;
  return {
    total: roundedUsd(summary.total + call.total),
    tokens: addTokens(summary.tokens, call.tokens),
    models: { ...summary.models, [usage.model]: model },
  };
}

/** A charge that belongs to no model, such as a base charge per run. */
export function addCharge(summary: CostSummary, amount: number): CostSummary {
  return { ...summary, total: roundedUsd(summary.total + amount) };
}

/** Two summaries added, e.g. a child workflow's cost into its parent's. */
export function mergeCosts(a: CostSummary, b: CostSummary): CostSummary {
  let merged: CostSummary = addCharge(
    a,
    b.total - Object.values(b.models).reduce((sum, model) => sum + model.total, 0),
  );
  for (const [model, cost] of Object.entries(b.models)) {
    merged = addModelUsage(merged, { model, input: cost.input, output: cost.output, tokens: cost.tokens });
  }
  return merged;
}

/** Adds a block's model call to the run's cost, and shows it on the block's span. */
export function recordModelUsage(run: { cost: CostSummary }, span: TraceSpan, usage: ModelUsage): void {
  run.cost = addModelUsage(run.cost, usage);
  span.model = usage.model;
  span.tokens = { ...usage.tokens };
  span.cost = modelCostOf(usage);
}
