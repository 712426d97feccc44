/**
 * The init duration of each Lambda bundle, measured as the Lambda runtime loads a CommonJS handler:
 * a fresh Node process `require`s the bundle (its modules evaluated, the AWS SDK packages it names
 * loaded from node_modules as the runtime loads its own copy) and reports how long that took.
 * Three fresh processes per bundle, one after the other, so that each pays a cold start; the
 * fastest of the three is kept, the one least disturbed by whatever else the machine was doing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleOutputDir } from '../scripts/bundle';

const run = promisify(execFile);

const probe = `
const started = performance.now();
require(process.argv[1]);
process.stdout.write(String(performance.now() - started));
`;

export interface BundleInit {
  id: string;
  initInMs: number;
}

/** Init of the bundles already built in dist/functions (scripts/bundle.ts), in milliseconds. */
export async function measureBundleInit(ids: string[]): Promise<BundleInit[]> {
  const results: BundleInit[] = [];
  for (const id of ids) {
    const times: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { stdout } = await run(process.execPath, ['-e', probe, join(bundleOutputDir, id, 'index.js')], {
        env: { ...process.env, AWS_SDK_JS_SUPPRESS_WARNINGS: '1', POWERTOOLS_LOG_LEVEL: 'SILENT' },
      });
      times.push(Number(stdout));
    }
    results.push({ id, initInMs: Number(Math.min(...times).toFixed(1)) });
  }
  return results;
}
