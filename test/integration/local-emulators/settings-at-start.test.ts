/**
 * The local server checks every setting before it starts anything: a wrong value ends the process
 * with a message naming the variable, and no stack, port or data is made.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../local/service';

const started: ChildProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** local/main.ts from the sources, as `npm start` runs it compiled; its exit code and what it printed. */
async function startServer(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: '0', ...env },
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

describe('the local server at start', () => {
  it.each([
    ['SYNC_BUDGET_MS', 'abc', 'SYNC_BUDGET_MS must be a number of milliseconds greater than 0, not "abc"'],
    ['PORT', 'http', 'PORT must be a port number from 0 to 65535, not "http"'],
  ])(
    'stops on %s=%s, naming the variable, before it makes anything',
    async (name, value, message) => {
      // Prepare
      const dataDir = await mkdtemp(join(tmpdir(), 'settings-at-start-'));
      folders.push(dataDir);

      // Act
      const ended = await startServer({ DATA_DIR: dataDir, [name]: value });

      // Assess
      expect(ended.code).toBe(1);
      expect(ended.output).toContain(message);
      expect(await readdir(dataDir)).toEqual([]);
    },
    60_000,
  );
});
