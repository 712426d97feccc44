import { describe, expect, it } from 'vitest';
import {
  builtInModelPrices,
  builtInPricingTable,
  costOfUsage,
  createPricingTable,
  normalizeModelId,
  pricingTableFrom,
} from '../../../core/llm/pricing';

const priceOf = (model: string) => builtInPricingTable.priceOf(model);

describe('pricing table lookup', () => {
  it('finds a model by its exact id, in any case', () => {
    expect(priceOf('gpt-4o')).toMatchObject({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(priceOf('  GPT-4o-Mini ')).toMatchObject({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(priceOf('claude-haiku-4-5')).toMatchObject({ inputPerMillion: 1, outputPerMillion: 5 });
  });

  it('prices a dated snapshot or alias as its family, preferring the longest family', () => {
    expect(priceOf('gpt-4o-2024-08-06')).toBe(builtInModelPrices['gpt-4o']);
    expect(priceOf('gpt-4o-mini-2024-07-18')).toBe(builtInModelPrices['gpt-4o-mini']);
    expect(priceOf('gpt-5.4-mini-2026-03-17')).toBe(builtInModelPrices['gpt-5.4-mini']);
    expect(priceOf('claude-sonnet-4-20250514')).toBe(builtInModelPrices['claude-sonnet-4']);
    expect(priceOf('claude-sonnet-4-5-20250929')).toBe(builtInModelPrices['claude-sonnet-4-5']);
    expect(priceOf('claude-3-5-sonnet-latest')).toBe(builtInModelPrices['claude-3-5-sonnet']);
    expect(priceOf('claude-opus-4-1@20250805')).toBe(builtInModelPrices['claude-opus-4-1']);
    expect(priceOf('o3-mini-2025-01-31')).toBe(builtInModelPrices['o3-mini']);
  });

  it('prices Bedrock ids: inference-profile prefixes and the anthropic namespace are dropped', () => {
    expect(normalizeModelId('us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(
      'claude-sonnet-4-20250514-v1:0',
    );
    expect(priceOf('us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(builtInModelPrices['claude-sonnet-4']);
    expect(priceOf('anthropic.claude-3-haiku-20240307-v1:0')).toBe(builtInModelPrices['claude-3-haiku']);
    expect(priceOf('global.anthropic.claude-haiku-4-5-20251001-v1:0')).toBe(
      builtInModelPrices['claude-haiku-4-5'],
    );
    expect(priceOf('amazon.nova-pro-v1:0')).toBe(builtInModelPrices['amazon.nova-pro']);
    expect(priceOf('eu.amazon.nova-lite-v1:0')).toBe(builtInModelPrices['amazon.nova-lite']);
    expect(priceOf('meta.llama3-3-70b-instruct-v1:0')).toBe(builtInModelPrices['meta.llama3-3-70b-instruct']);
    expect(priceOf('openai.gpt-oss-120b-1:0')).toBe(builtInModelPrices['gpt-oss-120b']);
  });

  it('never prices a newer version as its predecessor, nor an unknown model', () => {
    expect(priceOf('claude-opus-4-9')).toBeUndefined();
    expect(priceOf('claude-opus-4-9-20270101')).toBeUndefined();
    expect(priceOf('gpt-5.3')).toBeUndefined();
    expect(priceOf('gpt-4.1')).toBe(builtInModelPrices['gpt-4.1']);
    expect(priceOf('gpt-4o')).not.toBe(builtInModelPrices['gpt-4']);
    expect(priceOf('llama3.1:8b')).toBeUndefined();
    expect(priceOf('')).toBeUndefined();
  });

  it('dates and prices every built-in entry', () => {
    for (const [model, entry] of Object.entries(builtInModelPrices)) {
      expect(entry.inputPerMillion, model).toBeGreaterThan(0);
      expect(entry.outputPerMillion, model).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(entry.effectiveDate)), model).toBe(false);
    }
  });
});

describe('cost of usage', () => {
  it('is USD per million tokens, input and output apart', () => {
    const price = { inputPerMillion: 2.5, outputPerMillion: 10, effectiveDate: '2026-06-01' };
    expect(costOfUsage(price, { prompt: 1000, completion: 500 })).toEqual({
      input: 0.0025,
      output: 0.005,
      total: 0.0075,
    });
    expect(costOfUsage(price, { prompt: 1_000_000, completion: 2_000_000 })).toEqual({
      input: 2.5,
      output: 20,
      total: 22.5,
    });
  });

  it('does not drift on float sums', () => {
    const price = { inputPerMillion: 0.1, outputPerMillion: 0.2, effectiveDate: '2026-06-01' };
    expect(costOfUsage(price, { prompt: 1_000_000, completion: 1_000_000 }).total).toBe(0.3);
    expect(costOfUsage(price, { prompt: 3, completion: 7 })).toEqual({
      input: 0.0000003,
      output: 0.0000014,
      total: 0.0000017,
    });
  });

  it('is zero for an unpriced model', () => {
    expect(costOfUsage(undefined, { prompt: 123, completion: 456 })).toEqual({
      input: 0,
      output: 0,
      total: 0,
    });
  });
});

describe('price overrides', () => {
  it('adds and corrects prices from JSON; overrides match by prefix too', () => {
    const table = pricingTableFrom(
      JSON.stringify({
        'my-model': { inputPerMillion: 1, outputPerMillion: 2, effectiveDate: '2026-07-01' },
        'GPT-4o': { inputPerMillion: 2, outputPerMillion: 8 },
      }),
      { today: '2026-11-21' },
    );
    expect(table.priceOf('my-model-2026-07-01')).toEqual({
      inputPerMillion: 1,
      outputPerMillion: 2,
      effectiveDate: '2026-07-01',
    });
    expect(table.priceOf('gpt-4o-2024-08-06')).toEqual({
      inputPerMillion: 2,
      outputPerMillion: 8,
      effectiveDate: '2026-11-21',
    });
    expect(table.priceOf('gpt-4o-mini')).toBe(builtInModelPrices['gpt-4o-mini']);
  });

  it('accepts an object, and no overrides at all', () => {
    expect(pricingTableFrom({ x: { inputPerMillion: 0, outputPerMillion: 0 } }).priceOf('x')).toMatchObject({
      inputPerMillion: 0,
    });
    expect(pricingTableFrom(undefined).priceOf('gpt-4o')).toBe(builtInModelPrices['gpt-4o']);
    expect(pricingTableFrom('').priceOf('gpt-4o')).toBe(builtInModelPrices['gpt-4o']);
  });

  it('refuses invalid overrides with a message naming the problem', () => {
    expect(() => pricingTableFrom('{nope')).toThrow(/not valid JSON/);
    expect(() => pricingTableFrom('[1, 2]')).toThrow(/JSON object keyed by model id/);
    expect(() => pricingTableFrom({ m: { inputPerMillion: -1, outputPerMillion: 1 } })).toThrow(
      /Invalid model price for "m": inputPerMillion/,
    );
    expect(() => pricingTableFrom({ m: { inputPerMillion: 1 } })).toThrow(/"m": outputPerMillion/);
    expect(() =>
      pricingTableFrom({ m: { inputPerMillion: 1, outputPerMillion: 1, effectiveDate: 'soon' } }),
    ).toThrow(/effectiveDate/);
    expect(() => pricingTableFrom({ m: 3 })).toThrow(/"m"/);
  });

  it('builds a table over any price list', () => {
    const table = createPricingTable({
      'Acme-1': { inputPerMillion: 1, outputPerMillion: 1, effectiveDate: '2026-01-01' },
    });
    expect(table.priceOf('acme-1-latest')).toBeDefined();
    expect(table.priceOf('gpt-4o')).toBeUndefined();
  });
});
