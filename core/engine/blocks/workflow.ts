/**
 * The `workflow` block runs another deployed workflow of the same workspace inside this execution.
 * The step runner runs the child graph itself, as a frame of the same run (step/child-workflows.ts): its blocks
 * share the step budget, waits, cancellation and cost, and their spans become the children of the
 * block's span. This module reads the config and loads the child.
 *
 * - Output `{success: true, result}`: the child's response data, else the output of its last
 *   block(s), like a run's output.
 * - A child that fails fails the block, so that error edges work: with an error edge the block's
 *   output is `{success: false, error}` and the parent goes on down that edge; without one the
 *   parent fails too, its error naming the block and then the child's failing block.
 * - Nesting is capped by `limits.maxWorkflowDepth` (a child of the run is level 1).
 */
import { ValidationError } from '../../errors';
import { validatedGraph } from '../graph';
import { validateStartInput } from '../input';
import type { EngineLimits, WorkflowGraph } from '../types';
import { BlockError, type BlockRun, type ConfigResolver } from './types';
import type { Block } from '../types';

export interface ChildWorkflow {
  workflowId: string;
  graph: WorkflowGraph;
  input: Record<string, unknown>;
}

export function resolveWorkflowInputs(block: Block, resolve: ConfigResolver): Record<string, unknown> {
  const { workflowId, input } = block.config;
  const inputs: Record<string, unknown> = { workflowId: resolve.value(workflowId) };
  if (input !== undefined) inputs.input = resolve.value(input);
  return inputs;
}

function inputObjectOf(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new BlockError('Workflow input must be an object, or JSON text of one');
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BlockError('Workflow input must be an object, or JSON text of one');
  }
  return parsed as Record<string, unknown>;
}

function firstProblem(error: ValidationError): string {
  const [detail] = error.details ?? [];
  return detail ? `${detail.path ? `${detail.path}: ` : ''}${detail.message}` : error.message;
}

/**
 * Loads, validates and prepares the child: its deployed graph, and the input checked against its
 * start block. `depth` is the nesting level the child would run at (1 for a child of the top run).
 */
export async function loadChildWorkflow(
  inputs: Record<string, unknown>,
  run: BlockRun,
  depth: number,
  limits: EngineLimits,
): Promise<ChildWorkflow> {
  const { workflowId } = inputs;
  if (typeof workflowId !== 'string' || workflowId.trim() === '') {
    throw new BlockError('Workflow block needs a workflowId');
  }
  if (depth > limits.maxWorkflowDepth) {
    throw new BlockError(`Workflow nesting deeper than ${limits.maxWorkflowDepth} levels`);
  }
  const loader = run.deps.workflows;
  if (!loader) throw new BlockError('Child workflows are not available: the engine has no workflow loader');
  const graph = await loader.loadDeployed(run.context.workspaceId, workflowId);
  if (!graph) throw new BlockError(`Workflow "${workflowId}" is not deployed in this workspace`);
  let validated: WorkflowGraph;
  try {
    validated = validatedGraph(graph, { limits });
  } catch (error) {
    if (error instanceof ValidationError) {
      throw new BlockError(`Workflow "${workflowId}" is not valid: ${firstProblem(error)}`);
    }
    throw error;
  }
  try {
    return {
      workflowId,
      graph: validated,
      input: validateStartInput(validated, inputObjectOf(inputs.input)),
    };
  } catch (error) {
    if (error instanceof ValidationError)
      throw new BlockError(`Workflow "${workflowId}" input: ${error.message}`);
    throw error;
  }
}
