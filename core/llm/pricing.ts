/**
 * Prices of models (USD per million tokens) and what a call costs.
 *
 * How a model id finds its price (`priceOf`):
 *
 * 1. The id is lowercased and trimmed.
 * 2. A Bedrock cross-region inference-profile prefix is dropped (`us.`, `eu.`, `apac.`, `global.`,
 *    `us-gov.`, `jp.`, `au.`, `ca.`), and so is the namespace of a vendor whose models are also priced
 *    under their own names (`anthropic.`, `openai.`, or `anthropic/`, `openai/` as gateways write
 *    them). Other Bedrock namespaces stay part of the id: `amazon.nova-pro-v1:0`, `meta.llama3-...`.
 *    So `us.anthropic.claude-sonnet-4-20250514-v1:0` is priced as `claude-sonnet-4-20250514-v1:0`.
 * 3. An entry whose key is exactly that id wins.
 * 4. Otherwise the longest key that is a prefix of the id, followed in the id by `-`, `:`, `@` or
 *    `_`, wins: a dated snapshot or an alias of a family (`gpt-4o-2024-08-06`, `claude-3-5-sonnet-latest`,
 *    `amazon.nova-pro-v1:0`) takes the family's price. A remainder that starts with a short number
 *    on its own (`-7` in `claude-opus-4-7`) is a newer version, not a snapshot, and does not match:
 *    an unknown version is unpriced rather than priced as its predecessor. `.` is no boundary
 *    either, so `gpt-5.4` never takes the price of `gpt-5`.
 *
 * A model no entry matches is unpriced: its calls cost 0 and their tokens are still counted.
 * Deployments add or correct prices with `pricingTableFrom(overrides)`.
 */
import type { ModelPrice, PricingTable, TokenCounts } from '../engine/types';
import { roundedUsd } from '../money';

/** The date the built-in prices were checked against the providers' published price lists. */
export const builtInPricesCheckedOn = '2026-06-01';

function price(inputPerMillion: number, outputPerMillion: number, effectiveDate = builtInPricesCheckedOn) {
  return { inputPerMillion, outputPerMillion, effectiveDate };
}

/**
 * Standard (on-demand, short-context) list prices. Batch, cached-input, long-context and regional
 * surcharges are not modelled. Claude on Bedrock is priced as on Anthropic's own API.
 */
export const builtInModelPrices: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // OpenAI
  'gpt-5.5': price(5, 30),
  'gpt-5.5-pro': price(30, 180),
  'gpt-5.4': price(2.5, 15),
  'gpt-5.4-mini': price(0.75, 4.5),
  'gpt-5.4-nano': price(0.2, 1.25),
  'gpt-5.4-pro': price(30, 180),
  'gpt-5.2': price(1.75, 14),
  'gpt-5.1': price(1.25, 10),
  'gpt-5': price(1.25, 10),
  'gpt-5-mini': price(0.25, 2),
  'gpt-5-nano': price(0.05, 0.4),
  'gpt-5-pro': price(15, 120),
  'gpt-4.1': price(2, 8),
  'gpt-4.1-mini': price(0.4, 1.6),
  'gpt-4.1-nano': price(0.1, 0.4),
  'gpt-4o': price(2.5, 10),
  'gpt-4o-mini': price(0.15, 0.6),
  'gpt-4-turbo': price(10, 30),
  'gpt-4': price(30, 60),
  'gpt-3.5-turbo': price(0.5, 1.5),
  o1: price(15, 60),
  'o1-mini': price(1.1, 4.4),
  o3: price(2, 8),
  'o3-mini': price(1.1, 4.4),
  'o3-pro': price(20, 80),
  'o4-mini': price(1.1, 4.4),
  'gpt-oss-120b': price(0.15, 0.6),
  'gpt-oss-20b': price(0.07, 0.3),
  // Anthropic (and Claude on Bedrock)
  'claude-fable-5': price(10, 50),
  'claude-sonnet-5': price(3, 15, '2026-09-01'),
  'claude-opus-4-8': price(5, 25),
  'claude-opus-4-7': price(5, 25),
  'claude-opus-4-6': price(5, 25),
  'claude-opus-4-5': price(5, 25),
  'claude-opus-4-1': price(15, 75),
  'claude-opus-4-0': price(15, 75),
  'claude-opus-4': price(15, 75),
  'claude-sonnet-4-6': price(3, 15),
  'claude-sonnet-4-5': price(3, 15),
  'claude-sonnet-4-0': price(3, 15),
  'claude-sonnet-4': price(3, 15),
  'claude-haiku-4-5': price(1, 5),
  'claude-3-7-sonnet': price(3, 15),
  'claude-3-5-sonnet': price(3, 15),
  'claude-3-5-haiku': price(0.8, 4),
  'claude-3-opus': price(15, 75),
  'claude-3-haiku': price(0.25, 1.25),
  // Amazon Bedrock
  'amazon.nova-micro': price(0.035, 0.14),
  'amazon.nova-lite': price(0.06, 0.24),
  'amazon.nova-pro': price(0.8, 3.2),
  'amazon.nova-premier': price(2.5, 12.5),
  'meta.llama3-3-70b-instruct': price(0.72, 0.72),
  'meta.llama3-1-405b-instruct': price(2.4, 2.4),
  'meta.llama3-1-70b-instruct': price(0.72, 0.72),
  'meta.llama3-1-8b-instruct': price(0.22, 0.22),
  'mistral.mistral-large-2407': price(2, 6),
  'mistral.mistral-large-2402': price(4, 12),
  'deepseek.r1': price(1.35, 5.4),
});

const regionPrefix = /^(?:us|eu|apac|global|us-gov|jp|au|ca)\./;
const vendorPrefix = /^(?:anthropic|openai)[./]/;

/** The id as prices are looked up (steps 1 and 2 of the rule above). */
export function normalizeModelId(model: string): string {
  return model.trim().toLowerCase().replace(regionPrefix, '').replace(vendorPrefix, '');
}

/** Whether `rest`, what follows a matching key in an id, makes the id a snapshot or alias of the key. */
function extendsFamily(rest: string): boolean {
  if (rest === '') return true;
  if (!'-:@_'.includes(rest[0])) return false;
  // `-7` or `-7-2026...`: a newer minor version, not this family.
  return !/^-\d{1,2}(?:-|$)/.test(rest);
}

/** A pricing table over these prices (keys are normalized as model ids are). */
export function createPricingTable(prices: Readonly<Record<string, ModelPrice>>): PricingTable {
  const entries = new Map<string, ModelPrice>();
  for (const [model, entry] of Object.entries(prices)) entries.set(normalizeModelId(model), entry);
  const keysByLength = [...entries.keys()].sort((a, b) => b.length - a.length);
  return {
    priceOf(model) {
      const id = normalizeModelId(model);
      const exact = entries.get(id);
      if (exact) return exact;
      const key = keysByLength.find(
        (candidate) => id.startsWith(candidate) && extendsFamily(id.slice(candidate.length)),
      );
      return key === undefined ? undefined : entries.get(key);
    },
  };
}

export const builtInPricingTable: PricingTable = createPricingTable(builtInModelPrices);

function invalid(model: string, problem: string): Error {
  return new Error(`Invalid model price for "${model}": ${problem}`);
}

function priceFrom(model: string, value: unknown, today: string): ModelPrice {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(
      model,
      'expected {"inputPerMillion": number, "outputPerMillion": number, "effectiveDate"?: "YYYY-MM-DD"}',
    );
  }
  const entry = value as Record<string, unknown>;
  for (const field of ['inputPerMillion', 'outputPerMillion']) {
    const amount = entry[field];
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) {
      throw invalid(model, `${field} must be a number of USD, 0 or more`);
    }
  }
  const { effectiveDate } = entry;
  if (
    effectiveDate !== undefined &&
    (typeof effectiveDate !== 'string' || Number.isNaN(Date.parse(effectiveDate)))
  ) {
    throw invalid(model, 'effectiveDate must be a date such as "2026-06-01"');
  }
  return {
    inputPerMillion: entry.inputPerMillion as number,
    outputPerMillion: entry.outputPerMillion as number,
    effectiveDate: (effectiveDate as string | undefined) ?? today,
  };
}

/**
 * The built-in prices with extra or corrected ones merged over them, e.g. from an environment
 * variable holding `{"my-model": {"inputPerMillion": 1, "outputPerMillion": 2, "effectiveDate": "2026-07-01"}}`.
 * An override replaces the entry of the same (normalized) key and takes part in prefix matching like
 * the built-in ones. Without `effectiveDate`, an override is dated `today` (default: the current UTC date).
 * Throws an error naming the entry when the overrides are not valid.
 */
export function pricingTableFrom(
  overrides?: string | Readonly<Record<string, unknown>> | null,
  options: { base?: Readonly<Record<string, ModelPrice>>; today?: string } = {},
): PricingTable {
  const base = options.base ?? builtInModelPrices;
  if (overrides === undefined || overrides === null || overrides === '') return createPricingTable(base);
  let parsed: unknown = overrides;
  if (typeof overrides === 'string') {
    try {
      parsed = JSON.parse(overrides);
    } catch (error) {
      throw new Error(`Model price overrides are not valid JSON: ${(error as Error).message}`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('Model price overrides must be a JSON object keyed by model id');
  }
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const merged: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(base)) merged[normalizeModelId(model)] = entry;
  for (const [model, value] of Object.entries(parsed)) {
    if (normalizeModelId(model) === '') throw invalid(model, 'the model id is empty');
    merged[normalizeModelId(model)] = priceFrom(model, value, today);
  }
  return createPricingTable(merged);
}

export interface UsageCost {
  /** USD for the prompt tokens. */
  input: number;
  /** USD for the completion tokens. */
  output: number;
  total: number;
}

/** What these tokens cost at this price, in USD; an unpriced model (no price) costs 0. */
export function costOfUsage(
  price: ModelPrice | undefined,
  tokens: Pick<TokenCounts, 'prompt' | 'completion'>,
): UsageCost {
  if (!price) return { input: 0, output: 0, total: 0 };
  const input = roundedUsd((tokens.prompt * price.inputPerMillion) / 1_000_000);
  const output = roundedUsd((tokens.completion * price.outputPerMillion) / 1_000_000);
  return { input, output, total: roundedUsd(input + output) };
}
