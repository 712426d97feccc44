/**
 * CPU time of the service's main thread per sync run, measured from the kernel's count for that
 * thread (Linux: /proc/<pid>/task/<pid>/stat) rather than from a profile's busy time, which a loaded
 * machine inflates with the time the thread waits for a core. The service runs as the benchmark
 * starts it (bench/servers.ts), unprofiled; after 300 warm-up runs it takes BENCH_REQUESTS sync runs
 * (default 3,000) at 1 client and as many at 16, and prints the CPU per run of the main thread and
 * of the whole process (its worker threads included: the sandbox's QuickJS runs in one).
 *
 *   npx tsx bench/cpu-per-run.ts            compare two versions by running this in each, alternately
 */
import { runLoad } from './load';
import { cpuInMs, startBenchService } from './service-process';

const requests = Number(process.env.BENCH_REQUESTS ?? 3000);

const { target, child, stop } = await startBenchService();
try {
  const pid = child.pid!;
  await runLoad(target, 1, 300);
  const before = cpuInMs(pid);
  const loads = [await runLoad(target, 1, requests), await runLoad(target, 16, Math.ceil(requests / 16))];
  const runs = loads.reduce((sum, load) => sum + load.requests, 0);
  const errors = loads.reduce((sum, load) => sum + load.errors, 0);
  const after = cpuInMs(pid);
  const main = (after.mainThread - before.mainThread) / runs;
  const whole = (after.process - before.process) / runs;
  console.log(
    `${runs} runs (${errors} errors): main thread ${main.toFixed(3)} ms of CPU per run, process ${whole.toFixed(3)} ms; ` +
      loads
        .map(
          (load) =>
            `c${load.concurrency} ${load.throughputPerSecond.toFixed(0)}/s p50 ${load.p50InMs.toFixed(2)} ms`,
        )
        .join(', '),
  );
} finally {
  await stop();
}
