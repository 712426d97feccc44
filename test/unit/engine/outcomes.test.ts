import { describe, expect, it, vi } from 'vitest';
import type { BlockDefinition } from '../../../core/engine/blocks/types';
import { runToCompletion } from '../../../core/engine/run';
import type { TraceSpan } from '../../../core/engine/types';
import { block, blockSpans, contextOf, depsOf, edge, graphOf, inProcessRunner, loaderOf } from './fixtures';

/** A model block stand-in: every call used 10 prompt and 5 completion tokens of `test-model`. */
const modelBlock = vi.hoisted(
  (): BlockDefinition => ({
    type: 'agent',
    async execute() {
      return {
        output: { content: 'ok' },
        usage: {
          model: 'test-model',
          input: 0.00001,
          output: 0.00002,
          tokens: { prompt: 10, completion: 5, total: 15 },
        },
      };
    },
  }),
);

/** A router stand-in: picks the route named in its config. */
const routeBlock = vi.hoisted(
  (): BlockDefinition => ({
    type: 'router',
    async execute(inputs) {
      return { output: { selectedRoute: inputs.pick }, selectedHandles: [`router-${String(inputs.pick)}`] };
    },
  }),
);

vi.mock('../../../core/engine/blocks/registry', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../core/engine/blocks/registry')>();
  const stand = { agent: modelBlock, router: routeBlock } as Record<string, BlockDefinition>;
  return { ...original, blockDefinition: (type: string) => stand[type] ?? original.blockDefinition(type) };
});

function spansOfType(spans: TraceSpan[], type: string): TraceSpan[] {
  return spans.flatMap((span) => [
    ...(span.type === type ? [span] : []),
    ...spansOfType(span.children ?? [], type),
  ]);
}

describe('model usage', () => {
  it('puts each model call on its span and adds them all to the run cost, in loops and child workflows too', async () => {
    const child = graphOf(
      [block('cs', 'start', 'Start'), block('ca', 'agent', 'Inner', { model: 'test-model' })],
      [edge('cs', 'ca')],
    );
    const graph = graphOf(
      [
        block('s', 'start', 'Start'),
        block('a', 'agent', 'Writer', { model: 'test-model' }),
        block('l', 'loop', 'Loop', { loopType: 'for', iterations: 2 }),
        block('la', 'agent', 'Looped', { model: 'test-model' }, { parentId: 'l' }),
        block('w', 'workflow', 'Child', { workflowId: 'child' }),
      ],
      [edge('s', 'a'), edge('a', 'l'), edge('l', 'w')],
    );

    const result = await runToCompletion(
      contextOf(graph),
      depsOf(inProcessRunner(), undefined, { workflows: loaderOf({ child }) }),
    );

    expect(result.success).toBe(true);
    const spans = spansOfType(result.traceSpans, 'agent');
    expect(spans.map((span) => span.name)).toEqual(['Writer', 'Looped', 'Looped', 'Inner']);
    for (const span of spans) {
      expect(span).toMatchObject({
        model: 'test-model',
        tokens: { prompt: 10, completion: 5, total: 15 },
        cost: { input: 0.00001, output: 0.00002, total: 0.00003 },
      });
    }
    expect(result.cost).toEqual({
      total: 0.00012,
      tokens: { prompt: 40, completion: 20, total: 60 },
      models: {
        'test-model': {
          input: 0.00004,
          output: 0.00008,
          total: 0.00012,
          tokens: { prompt: 40, completion: 20, total: 60 },
        },
      },
    });
  });
});

describe('selected handles', () => {
  it('follows only the router-<id> edge a block selects and prunes the other routes', async () => {
    const graph = graphOf(
      [
        block('s', 'start', 'Start'),
        block('r', 'router', 'Route', { pick: 'billing' }),
        block('b', 'function', 'Billing', { code: 'return "billing"' }),
        block('t', 'function', 'Tech', { code: 'return "tech"' }),
        block('after', 'function', 'AfterTech', { code: 'return "after"' }),
      ],
      [edge('s', 'r'), edge('r', 'b', 'router-billing'), edge('r', 't', 'router-tech'), edge('t', 'after')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf(inProcessRunner()));

    expect(blockSpans(result.traceSpans).map((span) => span.name)).toEqual(['Start', 'Route', 'Billing']);
    expect(result.output).toEqual({ result: 'billing', stdout: '' });
  });
});
