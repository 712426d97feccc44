import { describe, expect, it } from 'vitest';
import { block, graphOf } from '../../../core/engine/builders';
import { blockViolations, graphViolations, refusalOf } from '../../../core/permissions/check';
import type { AccessPolicy } from '../../../core/permissions/types';

const policy = (restrictions: Partial<AccessPolicy> = {}): AccessPolicy => ({
  groupId: 'pg_1',
  groupName: 'Contractors',
  ...restrictions,
});

const inLoop = (id: string, type: string, name: string, config: Record<string, unknown> = {}) => ({
  ...block(id, type, name, config),
  parentId: 'loop',
});

describe('graphViolations', () => {
  it('finds nothing without a policy, or with a policy that restricts nothing', () => {
    const graph = graphOf([
      block('s', 'start', 'Start'),
      block('a', 'agent', 'Ask', { provider: 'anthropic' }),
    ]);
    expect(graphViolations(graph, undefined)).toEqual([]);
    expect(graphViolations(graph, policy())).toEqual([]);
  });

  it('names a block whose type the group does not allow, inside a loop as well, and always allows start', () => {
    // Prepare
    const graph = graphOf([
      block('s', 'start', 'Start'),
      block('loop', 'loop', 'Each', { loopType: 'for', iterations: 2 }),
      inLoop('call', 'api', 'Call out', { url: 'https://example.com', method: 'GET' }),
      block('f', 'function', 'Shout', { code: 'return 1' }),
    ]);

    // Act
    const found = graphViolations(graph, policy({ allowedBlocks: ['function', 'loop'] }));

    // Assess
    expect(found).toEqual([
      {
        blockId: 'call',
        blockName: 'Call out',
        blockType: 'api',
        kind: 'block',
        message:
          'Block "Call out" (api): block type "api" is not allowed by permission group "Contractors" (allowed: function, loop)',
      },
    ]);
  });

  it('names the provider of agent and router blocks the group does not allow, as the gateway reads it', () => {
    const graph = graphOf([
      block('a', 'agent', 'Ask', { provider: ' Anthropic ', model: 'claude' }),
      block('r', 'router', 'Route', { provider: 'bedrock', model: 'm' }),
      block('o', 'agent', 'Fine', { provider: 'openai', model: 'gpt' }),
    ]);
    const found = graphViolations(graph, policy({ allowedModelProviders: ['openai'] }));
    expect(found.map((v) => [v.blockName, v.kind, v.provider])).toEqual([
      ['Ask', 'provider', 'anthropic'],
      ['Route', 'provider', 'bedrock'],
    ]);
    expect(found[0].message).toBe(
      'Block "Ask" (agent) uses model provider "anthropic", which permission group "Contractors" does not allow (allowed: openai)',
    );
  });

  it('leaves a provider given by reference to the check of the resolved inputs', () => {
    const agent = block('a', 'agent', 'Ask', { provider: '<start.provider>', model: 'm' });
    const restricted = policy({ allowedModelProviders: ['openai'] });
    expect(graphViolations(graphOf([agent]), restricted)).toEqual([]);
    expect(blockViolations(agent, { provider: 'anthropic' }, restricted).map((v) => v.provider)).toEqual([
      'anthropic',
    ]);
  });

  it('allows no block but start with an empty list, and no provider with an empty provider list', () => {
    const graph = graphOf([block('s', 'start', 'Start'), block('a', 'agent', 'Ask', { provider: 'openai' })]);
    const found = graphViolations(graph, policy({ allowedBlocks: [], allowedModelProviders: [] }));
    expect(found.map((v) => v.kind)).toEqual(['block', 'provider']);
    expect(found[0].message).toContain('(allowed: none)');
  });

  it('does not check disabled blocks, which never run', () => {
    const graph = graphOf([{ ...block('c', 'api', 'Off'), enabled: false }]);
    expect(graphViolations(graph, policy({ allowedBlocks: ['function'] }))).toEqual([]);
  });

  it('refuses MCP and custom tools of agents when their switches are on, each once per block', () => {
    // Prepare
    const graph = graphOf([
      block('a', 'agent', 'Ask', {
        provider: 'openai',
        tools: [{ type: 'mcp', name: 'x' }, { type: 'custom-tool' }, { type: 'mcp' }, 'not a tool'],
      }),
    ]);

    // Act
    const both = graphViolations(graph, policy({ disableMcpTools: true, disableCustomTools: true }));
    const mcpOnly = graphViolations(graph, policy({ disableMcpTools: true }));
    const customOnly = graphViolations(graph, policy({ disableCustomTools: true }));
    const off = graphViolations(graph, policy());

    // Assess
    expect(both.map((v) => v.message)).toEqual([
      'Block "Ask" (agent): MCP tools are turned off by permission group "Contractors"',
      'Block "Ask" (agent): custom tools are turned off by permission group "Contractors"',
    ]);
    expect(mcpOnly.map((v) => v.kind)).toEqual(['mcpTools']);
    expect(customOnly.map((v) => v.kind)).toEqual(['customTools']);
    expect(off).toEqual([]);
  });
});

describe('refusalOf', () => {
  it('joins the messages, and is undefined without violations', () => {
    const graph = graphOf([block('a', 'api', 'One'), block('b', 'api', 'Two')]);
    const refused = refusalOf(graphViolations(graph, policy({ allowedBlocks: [] })));
    expect(refused).toMatch(/^Block "One" \(api\).*; Block "Two" \(api\)/);
    expect(refusalOf([])).toBeUndefined();
  });
});
