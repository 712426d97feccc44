/**
 * The service exactly as a user starts it: `npm start` in a child process (the compiled server,
 * scripts/start.mjs), in a process group of its own, on a free loopback port and a fresh data dir.
 * Stopping it sends SIGTERM to the whole group, SIGKILL after a grace period, waits for the process
 * to end and removes the data dir, so nothing is left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/build-server.mjs';

/**
 * How the local server loads its handlers: `compiled` is plain `npm start`; `bundles` is
 * `LOCAL_HANDLERS=bundles npm start`, which serves every route, worker and state-machine task from
 * the Lambda artifacts.
 */
export type ServiceMode = 'compiled' | 'bundles';
export const serviceModes: readonly ServiceMode[] = ['compiled', 'bundles'];

export interface CompiledServiceOptions {
  mode: ServiceMode;
  adminKey: string;
  /** Added to (and overriding) the environment the child inherits. */
  env?: Record<string, string>;
  /** How long the start may take: a build when the sources changed, on a loaded machine. */
  readyTimeoutInMs?: number;
  /** How long SIGTERM has to end the service before SIGKILL. */
  stopGraceInMs?: number;
}

export interface CompiledService {
  readonly mode: ServiceMode;
  readonly url: string;
  readonly adminKey: string;
  /** Its DATA_DIR, removed when it stops (the e-mail outbox is under it). */
  readonly dataDir: string;
  readonly pid: number;
  /** Whether the service is still running (false once it has ended, stopped or not). */
  isRunning(): boolean;
  /** What the service printed so far (stdout and stderr, the last 64 KB), for failure messages. */
  output(): string;
  /** Ends the process group and removes the data dir; safe to call twice. */
  stop(): Promise<void>;
}

export class CompiledServiceError extends Error {
  override readonly name = 'CompiledServiceError';
}

const outputLimitInChars = 64 * 1024;

/** A port nobody listens on now: the kernel's pick for a listener that is closed at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port given')),
      );
    });
  });
}

function hasEnded(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` to the child's process group; answers false when no process of it is left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    // The negative pid names the group: npm, the shell it may start and the server in it.
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until every process of the group has ended (npm may end before the server it started has
 * finished stopping); answers false if some are still there after `timeoutInMs`.
 */
async function groupEnded(child: ChildProcess, timeoutInMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutInMs;
  while (signalGroup(child, 0) || !hasEnded(child)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function hasPrintedBanner(printed: string, port: number): boolean {
  return new RegExp(`listening on http://\\S+:${port} `).test(printed);
}

async function healthy(url: string): Promise<boolean> {
  try {
    const answer = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) });
    await answer.arrayBuffer();
    return answer.status === 200;
  } catch {
    return false;
  }
}

/** Starts `npm start` and resolves once it has said it is ready and `/api/health` answers 200. */
export async function startCompiledService(options: CompiledServiceOptions): Promise<CompiledService> {
  const readyTimeoutInMs = options.readyTimeoutInMs ?? 300_000;
  const stopGraceInMs = options.stopGraceInMs ?? 10_000;
  const dataDir = await mkdtemp(join(tmpdir(), `workflow-service-e2e-${options.mode}-`));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: options.adminKey,
    AWS_SDK_JS_SUPPRESS_WARNINGS: '1',
    ...options.env,
  };
  if (options.mode === 'bundles') env.LOCAL_HANDLERS = 'bundles';
  else delete env.LOCAL_HANDLERS;
  const child = spawn('npm', ['start'], {
    cwd: projectRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let printed = '';
  const keep = (chunk: Buffer) => {
    printed = (printed + chunk.toString()).slice(-outputLimitInChars);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  // The group is detached: if this process ends without stopping it (a crash, a Ctrl-C of the
  // test run), it must not outlive it.
  const killOnExit = () => {
    signalGroup(child, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const service: CompiledService = {
    mode: options.mode,
    url,
    adminKey: options.adminKey,
    dataDir,
    pid: child.pid!,
    isRunning: () => !hasEnded(child),
    output: () => printed,
    stop() {
      stopping ??= (async () => {
        signalGroup(child, 'SIGTERM');
        if (!(await groupEnded(child, stopGraceInMs))) {
          signalGroup(child, 'SIGKILL');
          await groupEnded(child, stopGraceInMs);
        }
        process.removeListener('exit', killOnExit);
        await rm(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };

  // Health answers as soon as the server listens, before the demo data is made and the stop
  // signals are handled: ready is the banner of the port, printed once the start is complete.
  const deadline = Date.now() + readyTimeoutInMs;
  while (!(hasPrintedBanner(printed, port) && (await healthy(url)))) {
    if (hasEnded(child) || Date.now() > deadline) {
      const reason = hasEnded(child)
        ? `ended with ${child.exitCode ?? child.signalCode}`
        : `was not ready after ${readyTimeoutInMs} ms`;
      await service.stop();
      throw new CompiledServiceError(`npm start (${options.mode}) ${reason}:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return service;
}
