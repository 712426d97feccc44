/**
 * Sim's child workflow blocks, `workflow` (an input reference) and `workflow_input` (an input
 * mapping). The child is a workflow of the source workspace: the caller says which workflow of the
 * target it became, if any.
 */
import type { BlockMapping } from '../mapping';
import { parseJsonWithReferences } from '../references';
import { subText, subValue } from '../sim-values';

/** What a child reference that could not be mapped is left pointing at, so the run says so. */
export const unmappedChildWorkflowId = 'unmapped-child-workflow';

export const workflowMapping: BlockMapping = {
  type: 'workflow',
  config(context) {
    const { sim } = context;
    const sourceId = subText(sim, 'workflowId') ?? subText(sim, 'manualWorkflowId');
    const mapped = context.context.childWorkflowId({ id: sourceId ?? '', name: sim.name });
    if (mapped === undefined) {
      context.warn(
        sourceId === undefined
          ? "The child workflow (workflowId) was emptied by Sim's export; set workflowId to a deployed workflow of this workspace"
          : `The child workflow "${sourceId}" is not in this workspace; set workflowId to a deployed workflow of this workspace`,
      );
    }
    const config: Record<string, unknown> = { workflowId: mapped ?? sourceId ?? unmappedChildWorkflowId };
    const mapping = subValue(sim, 'inputMapping');
    const input = subValue(sim, 'input');
    if (mapping !== undefined) {
      config.input =
        typeof mapping === 'string'
          ? (parseJsonWithReferences(mapping, context.blockNames) ?? mapping)
          : mapping;
    } else if (input !== undefined) config.input = input;
    return config;
  },
};
