/**
 * `npx tsx bench/async-cpu.ts [rounds] [jobs]`: the CPU an async job costs the service, which a
 * shared machine's load disturbs less than the throughput. Starts the service as the benchmark does
 * (bench/servers.ts), warms it with 100 jobs, then runs `rounds` loads of `jobs` async jobs at 16
 * clients (bench/async.ts) and prints, for each, the jobs per second and the milliseconds of CPU per
 * job from the first request to the last job seen completed: of the whole service process (its
 * worker threads included) and of its main thread alone. Reads the CPU from /proc (Linux).
 */
import { runAsyncLoad } from './async';
import { cpuInMs, startBenchService } from './service-process';

const [rounds = 3, jobs = 500] = process.argv.slice(2).map(Number);

const { target, child, stop } = await startBenchService();
try {
  const pid = child.pid!;
  await runAsyncLoad(target, 100, 16);
  for (let round = 0; round < rounds; round++) {
    const before = cpuInMs(pid);
    let after = before;
    const result = await runAsyncLoad(target, jobs, 16, () => {
      after = cpuInMs(pid);
    });
    console.log(
      `${jobs} jobs: enqueue ${result.enqueuePerSecond}/s, completed ${result.completedPerSecond} jobs/s; ` +
        `CPU per job ${((after.process - before.process) / jobs).toFixed(2)} ms (main thread ${((after.mainThread - before.mainThread) / jobs).toFixed(2)} ms)` +
        (result.failed ? `; ${result.failed} failed` : ''),
    );
  }
} finally {
  await stop();
}
