/** Start-up of the embedded local emulators: cold on an empty data dir, warm on the same dir again. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalEmulators } from '../local/emulators';

export interface StackStartBench {
  coldStartInMs: number;
  warmStartInMs: number;
}

export async function benchStackStart(): Promise<StackStartBench> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-stack-'));
  try {
    const cold = await startLocalEmulators({ dataDir });
    await cold.stop();
    const warm = await startLocalEmulators({ dataDir });
    await warm.stop();
    return { coldStartInMs: cold.startupMs, warmStartInMs: warm.startupMs };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function printStackStartBench(result: StackStartBench): void {
  console.log('\nStart-up of the local emulators (DynamoDB, S3, SQS and the catalog resources)');
  console.log(
    `  cold ${result.coldStartInMs} ms on an empty data dir; warm ${result.warmStartInMs} ms on the same dir`,
  );
}
