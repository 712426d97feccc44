/**
 * The access policy at run time. The run's graph was checked when the run began; a provider given by
 * reference is known only once a block's inputs are resolved, and a child workflow's graph only once
 * it is loaded, so these are checked here.
 */
import { blockViolations, graphViolations, refusalOf } from '../../permissions/check';
import type { ChildWorkflow } from '../blocks/workflow';
import type { Block, RunContext } from '../types';

/** Why the policy refuses a block with these inputs; undefined when it allows it or there is none. */
export function blockRefusal(
  context: Pick<RunContext, 'policy'>,
  block: Block,
  inputs: Record<string, unknown>,
): string | undefined {
  const { policy } = context;
  return (policy && refusalOf(blockViolations(block, inputs, policy))) || undefined;
}

/** Why the policy refuses a child workflow's graph; undefined when it allows it. */
export function childRefusal(context: Pick<RunContext, 'policy'>, child: ChildWorkflow): string | undefined {
  const refused = refusalOf(graphViolations(child.graph, context.policy));
  return refused ? `Child workflow ${child.workflowId}: ${refused}` : undefined;
}
