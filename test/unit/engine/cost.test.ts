import { describe, expect, it } from 'vitest';
import { addCharge, addModelUsage, emptyCost, mergeCosts } from '../../../core/engine/cost';

const gptCall = {
  model: 'gpt-4o',
  input: 0.1,
  output: 0.2,
  tokens: { prompt: 100, completion: 50, total: 150 },
};

describe('cost', () => {
  it('starts at zero', () => {
    expect(emptyCost()).toEqual({ total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} });
  });

  it('adds model calls up per model and in total, without float drift', () => {
    const miniCall = {
      model: 'gpt-4o-mini',
      input: 0.01,
      output: 0.02,
      tokens: { prompt: 10, completion: 5, total: 15 },
    };

    const cost = addModelUsage(addModelUsage(addModelUsage(emptyCost(), gptCall), gptCall), miniCall);

    expect(cost).toEqual({
      total: 0.63,
      tokens: { prompt: 210, completion: 105, total: 315 },
      models: {
        'gpt-4o': {
          input: 0.2,
          output: 0.4,
          total: 0.6,
          tokens: { prompt: 200, completion: 100, total: 300 },
        },
        'gpt-4o-mini': {
          input: 0.01,
          output: 0.02,
          total: 0.03,
          tokens: { prompt: 10, completion: 5, total: 15 },
        },
      },
    });
  });

  it('leaves the summary it is given unchanged', () => {
    const before = emptyCost();

    addModelUsage(before, gptCall);

    expect(before).toEqual(emptyCost());
  });

  it('adds a charge that belongs to no model to the total only', () => {
    const cost = addCharge(addModelUsage(emptyCost(), gptCall), 0.005);

    expect(cost.total).toBe(0.305);
    expect(cost.models['gpt-4o'].total).toBe(0.3);
  });

  it('merges two summaries, charges included', () => {
    const child = addCharge(addModelUsage(emptyCost(), gptCall), 0.01);

    const merged = mergeCosts(addModelUsage(emptyCost(), gptCall), child);

    expect(merged.total).toBe(0.61);
    expect(merged.models['gpt-4o'].tokens.total).toBe(300);
  });
});
