import { describe, expect, it } from 'vitest';
import { chooseWorker, type WorkerState } from '../../../adapters/sandbox/worker-choice';

function worker(
  name: string,
  lastStarted: number,
  ready: boolean,
  active = false,
): WorkerState & { name: string } {
  const flag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  flag[0] = ready ? 1 : 0;
  return { name, lastStarted, ready: flag, ...(active ? { active: {} } : {}) };
}

describe('chooseWorker', () => {
  it('gives the run to the worker that ran last when its sandbox is ready', () => {
    const chosen = chooseWorker([worker('a', 3, true), worker('b', 7, true), worker('c', 5, true)]);

    expect(chosen?.name).toBe('b');
  });

  it('passes over a worker still preparing for one that is ready', () => {
    const chosen = chooseWorker([worker('a', 3, true), worker('b', 7, false)]);

    expect(chosen?.name).toBe('a');
  });

  it('with none ready, gives the run to the worker whose last run started longest ago', () => {
    const chosen = chooseWorker([worker('a', 9, false), worker('b', 2, false), worker('c', 5, false)]);

    expect(chosen?.name).toBe('b');
  });

  it('never gives a run to a busy worker, and none when all are busy', () => {
    expect(chooseWorker([worker('a', 9, true, true), worker('b', 2, false)])?.name).toBe('b');
    expect(chooseWorker([worker('a', 9, true, true), worker('b', 2, false, true)])).toBeUndefined();
  });
});
