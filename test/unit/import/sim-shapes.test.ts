import { describe, expect, it } from 'vitest';
import { toSimExport } from '../../../core/import';
import type { SimBlock } from '../../../core/import/types';
import { block, graphOf } from '../engine/fixtures';
import { everyBlockGraph } from './graphs';
import { viaSimExport } from './support';

/**
 * The sub-blocks each Sim block type defines (apps/sim/blocks/blocks/*.ts), with their types, as read
 * from Sim's source: an export that writes another id or type would be a setting Sim does not read.
 */
const simSubBlocks: Record<string, Record<string, string>> = {
  start_trigger: { inputFormat: 'input-format', runMetadata: 'switch' },
  function: {
    language: 'dropdown',
    code: 'code',
    sandboxId: 'combobox',
    secretScope: 'dropdown',
    mountedSecrets: 'dropdown',
  },
  agent: {
    messages: 'messages-input',
    model: 'combobox',
    temperature: 'slider',
    maxTokens: 'short-input',
    responseFormat: 'code',
    apiKey: 'short-input',
    tools: 'tool-input',
    memoryType: 'dropdown',
  },
  router_v2: {
    context: 'long-input',
    routes: 'router-input',
    model: 'combobox',
    apiKey: 'short-input',
    temperature: 'slider',
  },
  condition: { conditions: 'condition-input' },
  api: {
    url: 'short-input',
    method: 'dropdown',
    params: 'table',
    headers: 'table',
    body: 'code',
    timeout: 'short-input',
  },
  response: {
    dataMode: 'dropdown',
    builderData: 'response-format',
    data: 'code',
    status: 'short-input',
    headers: 'table',
  },
  wait: { timeValue: 'short-input', timeUnit: 'dropdown', timeUnitLong: 'dropdown', async: 'switch' },
  workflow: { workflowId: 'workflow-selector', manualWorkflowId: 'short-input', input: 'short-input' },
  workflow_input: {
    workflowId: 'workflow-selector',
    manualWorkflowId: 'short-input',
    inputMapping: 'input-mapping',
  },
  variables: { variables: 'variables-input' },
  loop: {},
  parallel: {},
};

describe('toSimExport block shapes', () => {
  const { document } = toSimExport({
    name: 'Every block',
    graph: everyBlockGraph(),
    exportedAt: '2026-11-02T00:00:00.000Z',
  });
  const blocks = Object.values((document as { state: { blocks: Record<string, SimBlock> } }).state.blocks);

  it('writes only block types and sub-blocks that Sim defines, each with its id and Sim type', () => {
    const unknown = blocks.flatMap((block) => {
      const defined = simSubBlocks[block.type];
      if (!defined) return [`${block.id}: type ${block.type}`];
      return Object.values(block.subBlocks)
        .filter((sub) => defined[sub.id] !== sub.type)
        .map((sub) => `${block.id}.${sub.id}: ${sub.type}`);
    });

    expect(blocks.length).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
  });

  it('puts children in their container through data.parentId and lists them in loops and parallels', () => {
    const state = (
      document as {
        state: { loops: Record<string, { nodes: string[] }>; parallels: Record<string, { nodes: string[] }> };
      }
    ).state;

    expect(blocks.find((block) => block.id === 'item')?.data).toMatchObject({
      parentId: 'loop',
      extent: 'parent',
    });
    expect(state.loops.loop.nodes).toEqual(['item']);
    expect(state.loops.inner.nodes).toEqual(['cell']);
    expect(state.parallels.fan.nodes).toEqual(['inner']);
  });
});

describe('toSimExport start block', () => {
  it('writes a files input as Sim writes it, file[], and reads it back as files', () => {
    const graph = graphOf([
      block('start', 'start', 'Start', { inputFormat: [{ name: 'docs', type: 'files', required: true }] }),
    ]);

    const { document, converted } = viaSimExport(graph);

    expect(JSON.stringify(document)).toContain('"type":"file[]"');
    expect(converted.graph.blocks.start.config.inputFormat).toEqual([
      { name: 'docs', type: 'files', required: true },
    ]);
  });
});
