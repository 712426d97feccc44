/**
 * `setTimeout` and friends inside the sandbox: the host keeps the pending callbacks and the run
 * loop (run-loop.ts) calls them when they are due, so no host timer outlives a run.
 */
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

export interface Timer {
  id: number;
  dueAt: number;
  callback: QuickJSHandle;
}

const maxPendingTimers = 1000;

export function installTimers(vm: QuickJSContext, timers: Map<number, Timer>): void {
  let nextId = 1;
  const setTimeoutHandle = vm.newFunction('setTimeout', (callback, delay) => {
    if (vm.typeof(callback) !== 'function') return vm.newNumber(0);
    // Each pending timer holds host memory, which the sandbox's limits do not see.
    if (timers.size >= maxPendingTimers) throw new Error(`More than ${maxPendingTimers} pending timers`);
    const id = nextId++;
    const delayInMs = delay && vm.typeof(delay) === 'number' ? Math.max(0, vm.getNumber(delay)) : 0;
    timers.set(id, { id, dueAt: Date.now() + delayInMs, callback: callback.dup() });
    return vm.newNumber(id);
  });
  const clearTimeoutHandle = vm.newFunction('clearTimeout', (idHandle) => {
    if (!idHandle || vm.typeof(idHandle) !== 'number') return;
    const timer = timers.get(vm.getNumber(idHandle));
    if (timer) {
      timers.delete(timer.id);
      timer.callback.dispose();
    }
  });
  vm.setProp(vm.global, 'setTimeout', setTimeoutHandle);
  vm.setProp(vm.global, 'clearTimeout', clearTimeoutHandle);
  setTimeoutHandle.dispose();
  clearTimeoutHandle.dispose();
}
