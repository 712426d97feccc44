import { describe, expect, it } from 'vitest';
import { block, graphOf } from '../../../core/engine/builders';
import {
  isLiteralModelKey,
  keepMaskedModelKeys,
  literalModelKeysOf,
  literalModelKeyWarnings,
  maskModelKeys,
} from '../../../core/workflows/model-keys';

const graphWith = (apiKey: unknown) =>
  graphOf([
    block('start', 'start', 'Start', {}),
    block('pick', 'router', 'Pick', { provider: 'openai', model: 'gpt-4o', apiKey }),
  ]);

describe('model keys in a graph', () => {
  it.each([
    ['sk-abc', true],
    ['sk-{{SUFFIX}}', true],
    ['{{OPENAI_KEY}}', false],
    [' {{OPENAI_KEY}} ', false],
    ['<start.key>', false],
    ['', false],
    [undefined, false],
  ])('tells a key written out (%j) from references', (value, literal) => {
    expect(isLiteralModelKey(value)).toBe(literal);
  });

  it('masks a literal key of any block type, leaving the stored graph as it was', () => {
    // Prepare
    const stored = graphWith('sk-abc');

    // Act
    const masked = maskModelKeys(stored);

    // Assess
    expect(masked.blocks.pick.config.apiKey).toBe('set');
    expect(stored.blocks.pick.config.apiKey).toBe('sk-abc');
    expect(maskModelKeys(graphWith('{{KEY}}'))).toEqual(graphWith('{{KEY}}'));
  });

  it('puts the stored key back where a save sends "set", and only there', () => {
    // Prepare
    const stored = graphWith('sk-abc');

    // Act
    const kept = keepMaskedModelKeys(graphWith('set'), stored);
    const replaced = keepMaskedModelKeys(graphWith('sk-new'), stored);

    // Assess
    expect(kept.blocks.pick.config.apiKey).toBe('sk-abc');
    expect(replaced.blocks.pick.config.apiKey).toBe('sk-new');
  });

  it('warns about each block with a key written out, and redacts only whole literal keys', () => {
    expect(literalModelKeyWarnings(graphWith('sk-abc'))).toEqual([
      expect.objectContaining({
        blockId: 'pick',
        blockName: 'Pick',
        blockType: 'router',
        kind: 'literalApiKey',
      }),
    ]);
    expect(literalModelKeyWarnings(graphWith('{{KEY}}'))).toEqual([]);
    expect(literalModelKeysOf(graphWith('sk-abc'))).toEqual(['sk-abc']);
    expect(literalModelKeysOf(graphWith('sk-{{SUFFIX}}'))).toEqual([]);
  });
});
