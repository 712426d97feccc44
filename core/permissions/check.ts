/**
 * The check of a workflow graph against an access policy. The graph's `blocks` hold every block,
 * those inside loops and parallels included, so one pass covers them all; child workflows are
 * checked by the engine when it loads them. Disabled blocks never run, so they are not checked.
 */
import type { Block, WorkflowGraph } from '../engine/types';
import { type AccessPolicy, alwaysAllowedBlockTypes } from './types';

export type ViolationKind = 'block' | 'provider' | 'mcpTools' | 'customTools';

/** One block the policy does not allow, and why, in words that name the block. */
export interface Violation {
  blockId: string;
  blockName: string;
  blockType: string;
  kind: ViolationKind;
  /** The model provider that is not allowed (kind `provider`). */
  provider?: string;
  message: string;
}

const modelBlockTypes = new Set(['agent', 'router']);

/** Every violation in the graph, in block order; none without a policy. */
export function graphViolations(graph: WorkflowGraph, policy: AccessPolicy | undefined): Violation[] {
  if (!policy) return [];
  return Object.values(graph.blocks).flatMap((block) =>
    block.enabled === false ? [] : blockViolations(block, block.config, policy),
  );
}

/**
 * The violations of one block. `config` is the block's config, or its inputs once resolved (a
 * provider given as a reference is known only then); a provider that is still a reference is left
 * to the check of the resolved inputs.
 */
export function blockViolations(
  block: Pick<Block, 'id' | 'name' | 'type'>,
  config: Record<string, unknown>,
  policy: AccessPolicy,
): Violation[] {
  const found: Violation[] = [];
  const add = (kind: ViolationKind, message: string, provider?: string) =>
    found.push({
      blockId: block.id,
      blockName: block.name,
      blockType: block.type,
      kind,
      ...(provider === undefined ? {} : { provider }),
      message,
    });
  const group = `permission group "${policy.groupName}"`;
  const label = `Block "${block.name}" (${block.type})`;
  if (!typeAllowed(block.type, policy)) {
    add(
      'block',
      `${label}: block type "${block.type}" is not allowed by ${group} (allowed: ${listed(policy.allowedBlocks)})`,
    );
  }
  if (modelBlockTypes.has(block.type)) {
    const provider = providerOf(config.provider);
    if (provider !== undefined && !providerAllowed(provider, policy)) {
      add(
        'provider',
        `${label} uses model provider "${provider}", which ${group} does not allow (allowed: ${listed(policy.allowedModelProviders)})`,
        provider,
      );
    }
  }
  // The product's agents carry their MCP and custom tools in `tools`.
  if (block.type === 'agent') {
    for (const tool of toolTypesOf(config.tools)) {
      if (tool === 'mcp' && policy.disableMcpTools)
        add('mcpTools', `${label}: MCP tools are turned off by ${group}`);
      if (tool === 'custom-tool' && policy.disableCustomTools)
        add('customTools', `${label}: custom tools are turned off by ${group}`);
    }
  }
  return found;
}

function typeAllowed(type: string, policy: AccessPolicy): boolean {
  if (!policy.allowedBlocks || alwaysAllowedBlockTypes.includes(type)) return true;
  return policy.allowedBlocks.includes(type);
}

function providerAllowed(provider: string, policy: AccessPolicy): boolean {
  return !policy.allowedModelProviders || policy.allowedModelProviders.includes(provider);
}

/** The provider as the model gateway reads it (trimmed, lowercased); undefined while it is a reference. */
function providerOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const provider = value.trim().toLowerCase();
  if (provider === '' || /^<[^<>]+>$/.test(provider)) return undefined;
  return provider;
}

/** The `type` of each tool of an agent's `tools` list. */
function toolTypesOf(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return [
    ...new Set(
      tools.flatMap((tool) =>
        tool !== null && typeof tool === 'object' && typeof (tool as { type?: unknown }).type === 'string'
          ? [(tool as { type: string }).type]
          : [],
      ),
    ),
  ];
}

function listed(values: string[] | undefined): string {
  return values && values.length > 0 ? values.join(', ') : 'none';
}

/** The run's error for these violations (each names its block), or undefined when there is none. */
export function refusalOf(violations: Violation[]): string | undefined {
  if (violations.length === 0) return undefined;
  return violations.map((violation) => violation.message).join('; ');
}
