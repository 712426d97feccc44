/**
 * Child workflows: a `workflow` block loads the workflow it names and runs it in a frame of its own,
 * whose end (completeFrame, failFrame) ends the block.
 */
import { type ChildWorkflow, loadChildWorkflow, resolveWorkflowInputs } from '../blocks/workflow';
import { type FrameState, workflowFrame } from '../checkpoint';
import { fail, refuse } from './block-ends';
import { blockRun, hydrate, indexOf, resolverOf } from './frames';
import { childRefusal } from './permissions';
import type { Frame, Step, WorkInFlight } from './runtime';
import { track, whenSettled } from './in-flight';

export function startChild(step: Step, frame: Frame, id: string): void {
  const run = blockRun(step, frame, id);
  const inFlight = track(step, frame, id, 'child');
  try {
    inFlight.shownInputs = resolveWorkflowInputs(run.block, resolverOf(frame.shown));
  } catch {
    // Reported by the resolution below.
  }
  const depth = frame.workflow.state.workflow!.depth + 1;
  whenSettled(
    step,
    inFlight,
    (async () =>
      loadChildWorkflow(
        resolveWorkflowInputs(run.block, resolverOf(frame.references)),
        run,
        depth,
        step.limits,
      ))(),
    (_step, _inFlight, child) => openChild(step, frame, id, inFlight, child, depth),
    (_step, _inFlight, { message }) =>
      fail(step, frame, id, message, inFlight.startedAt, inFlight.shownInputs, {
        errorOutput: { success: false, error: message },
      }),
  );
}

function openChild(
  step: Step,
  frame: Frame,
  id: string,
  inFlight: WorkInFlight,
  child: ChildWorkflow,
  depth: number,
): void {
  const refused = childRefusal(step.state.context, child);
  if (refused) {
    refuse(step, frame, id, refused, inFlight.startedAt, inFlight.shownInputs);
    return;
  }
  const frameId = `${frame.state.id}/${id}/workflow`;
  step.state.graphs[frameId] = child.graph;
  const block = frame.state.blocks[id];
  block.status = 'running';
  block.startedAt = inFlight.startedAt;
  block.input = inFlight.shownInputs;
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
