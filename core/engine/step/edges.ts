/**
 * Edges: a block is queued once all of its incoming edges have settled and one was taken. A block
 * whose incoming edges were all pruned, or that is disabled, is skipped and prunes its own outgoing
 * edges.
 */
import type { Frame, Step } from './runtime';

/** Settles the pending outgoing edges of a block and everything that follows from that. */
export function settleOutgoing(
  step: Step,
  frame: Frame,
  id: string,
  follow: (handle: string) => boolean,
): void {
  const ready: string[] = [];
  settleEdges(frame, id, follow, ready);
  drain(step, frame, ready);
}

function settleEdges(frame: Frame, id: string, follow: (handle: string) => boolean, settled: string[]): void {
  const { scope, state } = frame;
  for (const position of scope.outgoing.get(id)!) {
    if (state.edges[position] !== 'pending') continue;
    const taken = follow(scope.handles[position]);
    state.edges[position] = taken ? 'taken' : 'pruned';
    const target = scope.targets[position];
    if (taken) frame.reached.add(target);
    const pending = frame.pendingIncoming.get(target)! - 1;
    frame.pendingIncoming.set(target, pending);
    if (pending === 0) settled.push(target);
  }
}

const followNone = (): boolean => false;

/** Queues each settled block that was reached and is enabled; skips the others, pruning onwards. */
export function drain(step: Step, frame: Frame, settled: string[]): void {
  for (let next = 0; next < settled.length; next++) {
    const id = settled[next];
    const block = frame.state.blocks[id];
    if (block.status !== 'pending') continue;
    if (frame.reached.has(id) && frame.index.graph.blocks[id].enabled !== false) {
      step.queue.push({ kind: 'block', frame, block: id });
      continue;
    }
    block.status = 'skipped';
    frame.remaining -= 1;
    settleEdges(frame, id, followNone, settled);
  }
}
