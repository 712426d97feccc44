/**
 * The sandbox pool's waiting runs, one queue per workspace, served in turn: the next run is the
 * first of the next workspace (in the order they last got a worker) that holds fewer workers than
 * its share. A workspace with a backlog therefore waits for its own runs only, and another's run
 * is next as soon as a worker is free.
 */
export interface QueuedRun {
  /** The workspace whose queue and share the run is in; '' for runs that name none (no share). */
  workspace: string;
}

export class FairQueue<Run extends QueuedRun> {
  /** Non-empty queues only, in turn order: a workspace served goes to the back. */
  private readonly waiting = new Map<string, Run[]>();
  private readonly busy = new Map<string, number>();
  private count = 0;

  constructor(
    private readonly sharePerWorkspace: number,
    private readonly shareOfUnnamed: number,
  ) {}

  get size(): number {
    return this.count;
  }

  waitingOf(workspace: string): number {
    return this.waiting.get(workspace)?.length ?? 0;
  }

  push(run: Run): void {
    const runs = this.waiting.get(run.workspace);
    if (runs) runs.push(run);
    else this.waiting.set(run.workspace, [run]);
    this.count += 1;
  }

  /** The next run to start, taken off its queue; none while every waiting workspace holds its share. */
  next(): Run | undefined {
    for (const [workspace, runs] of this.waiting) {
      if ((this.busy.get(workspace) ?? 0) >= this.shareOf(workspace)) continue;
      const run = runs.shift() as Run;
      this.waiting.delete(workspace);
      if (runs.length > 0) this.waiting.set(workspace, runs);
      this.count -= 1;
      return run;
    }
    return undefined;
  }

  /** Takes a waiting run off its queue (cancelled, or out of time); false when it was not waiting. */
  remove(run: Run): boolean {
    const runs = this.waiting.get(run.workspace);
    const index = runs?.indexOf(run) ?? -1;
    if (!runs || index < 0) return false;
    runs.splice(index, 1);
    if (runs.length === 0) this.waiting.delete(run.workspace);
    this.count -= 1;
    return true;
  }

  /** Every waiting run, the queues emptied. */
  drain(): Run[] {
    const runs = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.count = 0;
    return runs;
  }

  started(run: Run): void {
    this.busy.set(run.workspace, (this.busy.get(run.workspace) ?? 0) + 1);
  }

  finished(run: Run): void {
    const left = (this.busy.get(run.workspace) ?? 1) - 1;
    if (left > 0) this.busy.set(run.workspace, left);
    else this.busy.delete(run.workspace);
  }

  private shareOf(workspace: string): number {
    return workspace === '' ? this.shareOfUnnamed : this.sharePerWorkspace;
  }
}
