import { describe, expect, it } from 'vitest';
import { block, graphOf } from '../../../core/engine/builders';
import { ValidationError } from '../../../core/errors';
import { doneMarker, resolveSelectedOutputs, sseFrame } from '../../../core/runs/stream';

const graph = graphOf([
  block('start', 'start', 'Start'),
  block('agent1', 'agent', 'My Writer'),
  block('respond', 'response', 'Respond'),
]);

describe('sseFrame', () => {
  it('writes one data line of JSON followed by a blank line', () => {
    expect(sseFrame({ blockId: 'a', chunk: 'x\ny' })).toBe('data: {"blockId":"a","chunk":"x\\ny"}\n\n');
  });

  it('ends a stream with the literal [DONE] marker', () => {
    expect(doneMarker).toBe('data: [DONE]\n\n');
  });
});

describe('resolveSelectedOutputs', () => {
  it('finds a block by its name lowercased with spaces removed, and takes the rest as the path', () => {
    expect(resolveSelectedOutputs(graph, ['mywriter.content', 'MY WRITER.tokens.total'])).toEqual([
      { blockId: 'agent1', path: ['content'] },
      { blockId: 'agent1', path: ['tokens', 'total'] },
    ]);
  });

  it('finds a block by its id too, and takes a bare name as the whole output', () => {
    expect(resolveSelectedOutputs(graph, ['agent1.content', 'Respond'])).toEqual([
      { blockId: 'agent1', path: ['content'] },
      { blockId: 'respond', path: [] },
    ]);
  });

  it('refuses an entry that names no block, saying which entry', () => {
    const resolve = () => resolveSelectedOutputs(graph, ['respond.data', 'Nobody.content']);
    expect(resolve).toThrow(ValidationError);
    expect(resolve).toThrow('selectedOutputs: "Nobody.content" names no block of this workflow');
  });

  it('selects nothing when none are given', () => {
    expect(resolveSelectedOutputs(graph)).toEqual([]);
  });
});
