/** Graphs of ours that the export tests share. */
import type { WorkflowGraph } from '../../../core/engine/types';
import { block, edge, graphOf } from '../engine/fixtures';

/** One of ours with every block that has a Sim counterpart, plus a file block that has none. */
export function everyBlockGraph(): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', {
        inputFormat: [
          { name: 'n', type: 'number', required: true },
          { name: 'tags', type: 'array' },
        ],
      }),
      block('vars', 'variables', 'Set', {
        assignments: [
          { name: 'base', value: 100 },
          { name: 'meta', value: { a: 1 } },
        ],
      }),
      block('check', 'condition', 'Check', {
        conditions: [
          { id: 'pos', expression: '<start.n> > 0' },
          { id: 'other', expression: 'else' },
        ],
      }),
      block('neg', 'response', 'Negative', { data: { sign: 'negative' }, status: 400 }),
      block('fetch', 'api', 'Fetch', {
        url: 'http://127.0.0.1:9/things',
        method: 'GET',
        headers: { 'x-a': '{{TOKEN}}' },
      }),
      block('ask', 'agent', 'Ask', {
        provider: 'openai',
        model: 'gpt-4o',
        systemPrompt: 'Be brief.',
        userPrompt: 'Count <fetch.data.things>',
        apiKey: '{{OPENAI_API_KEY}}',
        temperature: 0,
        maxTokens: 50,
        responseFormat: { type: 'object', properties: { word: { type: 'string' } } },
      }),
      block('route', 'router', 'Route', {
        provider: 'openai',
        model: 'gpt-4o',
        prompt: 'Pick for <ask.word>',
        routes: [
          { id: 'high', description: 'big' },
          { id: 'low', description: 'small' },
        ],
      }),
      block('low', 'function', 'Low', { code: "return 'low'" }),
      block('loop', 'loop', 'Each', { loopType: 'forEach', forEachItems: '<start.tags>' }),
      block(
        'item',
        'function',
        'Item',
        { code: 'return <loop.currentItem> + <loop.index> + <variable.base>' },
        { parentId: 'loop' },
      ),
      block('fan', 'parallel', 'Fan', { parallelType: 'count', count: 2 }),
      block(
        'inner',
        'loop',
        'Inner',
        { loopType: 'while', condition: '<loop.index> < 2' },
        { parentId: 'fan' },
      ),
      block(
        'cell',
        'function',
        'Cell',
        { code: 'return <parallel.index> * 10 + <loop.index>' },
        { parentId: 'inner' },
      ),
      block('pause', 'wait', 'Pause', { durationMs: 1500 }),
      block('child', 'workflow', 'Child', { workflowId: 'wf-child', input: { text: '<low.result>' } }),
      block('doc', 'file', 'Doc', { files: [] }),
      block('risky', 'function', 'Risky', { code: 'throw new Error("nope")' }),
      block('reply', 'response', 'Reply', {
        data: {
          items: '<each.results>',
          grid: '<fan.results>',
          child: '<child.result>',
          risky: '<risky.error>',
          meta: '<variable.meta>',
        },
        status: 201,
        headers: { 'cache-control': 'no-cache' },
      }),
    ],
    [
      edge('start', 'vars'),
      edge('vars', 'check'),
      edge('check', 'neg', 'condition-other'),
      edge('check', 'fetch', 'condition-pos'),
      edge('fetch', 'ask'),
      edge('ask', 'route'),
      edge('route', 'low', 'router-low'),
      edge('low', 'loop'),
      edge('loop', 'fan'),
      edge('fan', 'pause'),
      edge('pause', 'child'),
      edge('child', 'risky'),
      edge('risky', 'reply', 'error'),
    ],
  );
}
