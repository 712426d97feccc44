/**
 * Per thread of the service, per sync run (at one client unless told): the CPU the kernel counted and the times
 * the thread went to sleep (voluntary context switches, Linux /proc/<pid>/task/<tid>/status). Each
 * sleep is a hand-off the run waited for: the main thread waiting for an emulator's answer or the
 * sandbox, the emulator thread for LevelDB's writes on libuv's pool, a pool thread for its next job.
 * The switch counts hardly move with the machine's load, unlike timings, so they show a change
 * that removes a hand-off even on a noisy machine.
 *
 *   npx tsx bench/thread-cpu.ts                     BENCH_REQUESTS runs (default 3,000) after 300 warm-up runs
 *   BENCH_CLIENTS=16 npx tsx bench/thread-cpu.ts    the same at 16 clients
 *
 * Threads are listed by id, the main thread first, then by CPU; Node names none of them, so which is
 * which comes from their share (the emulator thread is the busiest after the main thread, the
 * sandbox's workers take turns, libuv's four pool threads and V8's helpers each do a little).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { runLoad } from './load';
import { cpuInMsOf, startBenchService } from './service-process';

const clients = Number(process.env.BENCH_CLIENTS ?? 1);
const requests = Math.ceil(Number(process.env.BENCH_REQUESTS ?? 3000) / clients) * clients;
interface ThreadCount {
  cpuInMs: number;
  sleeps: number;
}

function threadsOf(pid: number): Map<string, ThreadCount> {
  const threads = new Map<string, ThreadCount>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      threads.set(tid, {
        cpuInMs: cpuInMsOf(`/proc/${pid}/task/${tid}/stat`),
        sleeps: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      });
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return threads;
}

const { target, child, stop } = await startBenchService();
try {
  const pid = child.pid!;
  await runLoad(target, 1, 300);
  const before = threadsOf(pid);
  const load = await runLoad(target, clients, requests / clients);
  const after = threadsOf(pid);
  const rows = [...after]
    .map(([tid, count]) => {
      const was = before.get(tid) ?? { cpuInMs: 0, sleeps: 0 };
      return {
        tid,
        cpuInMs: (count.cpuInMs - was.cpuInMs) / requests,
        sleeps: (count.sleeps - was.sleeps) / requests,
      };
    })
    .filter((row) => row.cpuInMs >= 0.005 || row.sleeps >= 0.005)
    .sort((a, b) => Number(b.tid === String(pid)) - Number(a.tid === String(pid)) || b.cpuInMs - a.cpuInMs);
  console.log(
    `${requests} sync runs at ${clients} client(s): ${load.throughputPerSecond}/s, p50 ${load.p50InMs} ms`,
  );
  console.log('thread      CPU ms/run  sleeps/run');
  for (const row of rows) {
    const name = row.tid === String(pid) ? `${row.tid} main` : row.tid;
    console.log(
      `${name.padEnd(12)}${row.cpuInMs.toFixed(3).padStart(10)}${row.sleeps.toFixed(2).padStart(12)}`,
    );
  }
  const total = rows.reduce((sum, row) => ({ cpu: sum.cpu + row.cpuInMs, sleeps: sum.sleeps + row.sleeps }), {
    cpu: 0,
    sleeps: 0,
  });
  console.log(
    `${'all'.padEnd(12)}${total.cpu.toFixed(3).padStart(10)}${total.sleeps.toFixed(2).padStart(12)}`,
  );
} finally {
  await stop();
}
