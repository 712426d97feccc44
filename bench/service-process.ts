/**
 * The benchmarked server as a child process (bench/servers.ts), and the CPU the kernel has counted
 * for it, so that every bench starts and measures it the same way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Target } from './load';

/**
 * Starts `bench/servers.ts <args>` and resolves with the target it prints once ready; `cwd` is the
 * checkout whose code it runs (this one unless told, see bench/ab.ts).
 */
export async function startBenchServer(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ target: Target; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers.ts', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, AWS_SDK_JS_SUPPRESS_WARNINGS: '1', ...env },
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith('{')) return { target: JSON.parse(line) as Target, child };
  }
  throw new Error(`Server ${args.join(' ')} ended before it was ready`);
}

export interface BenchService {
  target: Target;
  child: ChildProcess;
  /** Ends the service, waits for it to exit, and removes its data dir. */
  stop(): Promise<void>;
}

/**
 * The workflow service on a data dir of its own (bench/servers.ts `service`), of the checkout at
 * `cwd`, with `env` added to its environment.
 */
export async function startBenchService(
  cwd?: string,
  env: Record<string, string> = {},
): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-bench-'));
  const { target, child } = await startBenchServer(['service', dataDir], env, cwd);
  return {
    target,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux

/** User plus system CPU in ms of a /proc stat file (the process name may hold spaces and parentheses). */
export function cpuInMsOf(statFile: string): number {
  const text = readFileSync(statFile, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
}

/**
 * CPU used so far by a process, all its threads, and by its main thread alone (Linux /proc). Read
 * from the kernel's count, which a loaded machine disturbs less than a profile's busy time.
 */
export function cpuInMs(pid: number): { process: number; mainThread: number } {
  return { process: cpuInMsOf(`/proc/${pid}/stat`), mainThread: cpuInMsOf(`/proc/${pid}/task/${pid}/stat`) };
}
