import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../../adapters/sandbox/fair-queue';

const runOf = (workspace: string, name: string) => ({ workspace, name });

describe('FairQueue', () => {
  it('serves the workspaces in turn, one run each, whatever order the runs came in', () => {
    // Prepare
    const queue = new FairQueue<ReturnType<typeof runOf>>(10, 10);
    for (const name of ['a1', 'a2', 'a3']) queue.push(runOf('a', name));
    queue.push(runOf('b', 'b1'));
    queue.push(runOf('c', 'c1'));
    queue.push(runOf('b', 'b2'));

    // Act
    const order = Array.from({ length: 6 }, () => queue.next()?.name);

    // Assess
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(queue.size).toBe(0);
  });

  it('passes over a workspace that holds its share of workers until one of its runs finishes', () => {
    // Prepare
    const queue = new FairQueue<ReturnType<typeof runOf>>(1, 4);
    queue.push(runOf('a', 'a1'));
    queue.push(runOf('a', 'a2'));
    const first = queue.next()!;
    queue.started(first);

    // Act
    const whileBusy = queue.next();
    queue.push(runOf('b', 'b1'));
    const other = queue.next();
    queue.finished(first);
    const afterwards = queue.next();

    // Assess
    expect(whileBusy).toBeUndefined();
    expect(other?.name).toBe('b1');
    expect(afterwards?.name).toBe('a2');
  });

  it('gives runs that name no workspace a share of their own, and takes cancelled runs out', () => {
    // Prepare
    const queue = new FairQueue<ReturnType<typeof runOf>>(1, 2);
    const unnamed = [runOf('', 'u1'), runOf('', 'u2'), runOf('', 'u3')];
    for (const run of unnamed) queue.push(run);

    // Act
    const removed = queue.remove(unnamed[2]);
    const started = [queue.next()!, queue.next()!];
    for (const run of started) queue.started(run);
    const third = queue.next();

    // Assess
    expect(removed).toBe(true);
    expect(queue.remove(unnamed[2])).toBe(false);
    expect(started.map((run) => run.name)).toEqual(['u1', 'u2']);
    expect(third).toBeUndefined();
    expect(queue.waitingOf('')).toBe(0);
  });
});
