/**
 * One running stack per data dir. Two would corrupt each other's state (LevelDB refuses a second
 * opener, but dynalite then fails with an uncaught exception instead of an error one can catch; the
 * queue snapshot would simply be overwritten). The lock is a file holding the owner's process id; a
 * lock left by a process that no longer runs (killed, crashed) is taken over.
 */
import { readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = 'stack.lock';

/** Takes the data dir's lock; answers the function that releases it. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) {
        const who = holder === process.pid ? 'this process' : `process ${holder}`;
        throw new Error(`The local data dir ${dataDir} is in use by another running stack (${who})`);
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`Could not lock the local data dir ${dataDir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A killed process whose parent died with it stays a zombie until init reaps it, which some
 * container inits do late or never. It holds no files (its LevelDB lock is gone), so a restart right
 * after a kill must not take it for the running owner of the data dir. Linux only; elsewhere no.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
