/**
 * `npx tsx bench/async-cpu.ts [rounds] [jobs]`: the CPU an async job costs the service, which a
 * shared machine's load disturbs less than the throughput. Starts the service as the benchmark does
 * (bench/servers.ts), warms it with 100 jobs, then runs `rounds` loads of `jobs` async jobs at 16
 * clients (bench/async.ts) and prints, for each, the jobs per second and the milliseconds of CPU per
 * job from the first request to the last job seen completed: of the whole service process (its
 * worker threads included) and of its main thread alone. Reads the CPU from /proc (Linux).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runAsyncLoad } from './async';
import type { Target } from './load';

const [rounds = 3, jobs = 500] = process.argv.slice(2).map(Number);
const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux

/** User plus system CPU in milliseconds of /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat. */
function cpuInMs(statFile: string): number {
  const text = readFileSync(statFile, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
}

const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-async-cpu-'));
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts', 'service', dataDir], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, AWS_SDK_JS_SUPPRESS_WARNINGS: '1' },
});
try {
  let target: Target | undefined;
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith('{')) {
      target = JSON.parse(line) as Target;
      break;
    }
  }
  if (!target) throw new Error('The service ended before it was ready');
  const processStat = `/proc/${child.pid}/stat`;
  const mainThreadStat = `/proc/${child.pid}/task/${child.pid}/stat`;
  await runAsyncLoad(target, 100, 16);
  for (let round = 0; round < rounds; round++) {
    const before = { all: cpuInMs(processStat), main: cpuInMs(mainThreadStat) };
    let after = before;
    const result = await runAsyncLoad(target, jobs, 16, () => {
      after = { all: cpuInMs(processStat), main: cpuInMs(mainThreadStat) };
    });
    console.log(
      `${jobs} jobs: enqueue ${result.enqueuePerSecond}/s, completed ${result.completedPerSecond} jobs/s; ` +
        `CPU per job ${((after.all - before.all) / jobs).toFixed(2)} ms (main thread ${((after.main - before.main) / jobs).toFixed(2)} ms)` +
        (result.failed ? `; ${result.failed} failed` : ''),
    );
  }
} finally {
  child.kill('SIGTERM');
  await rm(dataDir, { recursive: true, force: true });
}
