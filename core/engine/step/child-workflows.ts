/**
 * Child workflows: a `workflow` block loads the workflow it names and runs it in a frame of its own,
 * whose end (completeFrame, failFrame) ends the block.
 */
import { type ChildWorkflow, loadChildWorkflow, resolveWorkflowInputs } from '../blocks/workflow';
import { type FrameState, workflowFrame } from '../checkpoint';
import { fail, refuse } from './block-ends';
import { blockRun, hydrate, indexOf, resolverOf } from './frames';
import { childRefusal } from './permissions';
import type { Frame, Step, Task } from './runtime';
import { track, whenSettled } from './tasks';

export function startChild(step: Step, frame: Frame, id: string): void {
  const run = blockRun(step, frame, id);
  const task = track(step, frame, id, 'child');
  try {
    task.shownInputs = resolveWorkflowInputs(run.block, resolverOf(frame.shown));
  } catch {
    // Reported by the resolution below.
  }
  const depth = frame.workflow.state.workflow!.depth + 1;
  whenSettled(
    step,
    task,
    (async () =>
      loadChildWorkflow(
        resolveWorkflowInputs(run.block, resolverOf(frame.references)),
        run,
        depth,
        step.limits,
      ))(),
    (_step, _task, child) => openChild(step, frame, id, task, child, depth),
    (_step, _task, message) =>
      fail(step, frame, id, message, task.startedAt, task.shownInputs, {
        errorOutput: { success: false, error: message },
      }),
  );
}

function openChild(
  step: Step,
  frame: Frame,
  id: string,
  task: Task,
  child: ChildWorkflow,
  depth: number,
): void {
  const refused = childRefusal(step.state.context, child);
  if (refused) {
    refuse(step, frame, id, refused, task.startedAt, task.shownInputs);
    return;
  }
  const frameId = `${frame.state.id}/${id}/workflow`;
  step.state.graphs[frameId] = child.graph;
  const block = frame.state.blocks[id];
  block.status = 'running';
  block.startedAt = task.startedAt;
  block.input = task.shownInputs;
  block.child = frameId;
  frame.running.add(id);
  const state: FrameState = workflowFrame(
    frameId,
    frameId,
    indexOf(step, frameId),
    { depth, variables: {}, workflowId: child.workflowId, input: child.input },
    step.deps.now(),
    { frame: frame.state.id, block: id },
  );
  step.state.frames[frameId] = state;
  hydrate(step, state);
}
