/**
 * The init duration of each Lambda bundle, measured as the Lambda runtime loads a CommonJS handler:
 * a fresh Node process `require`s the bundle (its modules evaluated, the AWS SDK it carries
 * included) and reports how long that took. Five fresh processes per bundle, one after the other,
 * so that each pays a cold start; the median of the five is kept. The processes run as Lambda's do:
 * on Node 22 (nodejs22.x; a machine with an older Node gets the Node 22 of scripts/node-floor.ts)
 * and with the functions' NODE_OPTIONS, whose source maps Node reads as it loads each bundle.
 *
 * The bundles live in the project, where Node would find the project's node_modules above them: the
 * probe fails a bundle that resolves an AWS SDK package outside its own folder, so what is measured
 * is the SDK the function ships, never the project's copy (in AWS, the runtime's).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { functionNodeOptions } from '../catalog/function-defaults';
import { bundleOutputDir } from '../scripts/bundle';
import { nodeFloor } from '../scripts/node-floor';
import { percentile } from './load';

const run = promisify(execFile);

export const initRunsPerBundle = 5;

const probe = `
const Module = require('node:module');
const { dirname, isAbsolute, sep } = require('node:path');
const folder = dirname(process.argv[1]) + sep;
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const found = resolveFilename.call(this, request, ...rest);
  if (/^@(aws-sdk|smithy)\\//.test(request) && isAbsolute(found) && !found.startsWith(folder)) {
    throw new Error('the bundle loads ' + request + ' from ' + found + ', outside its folder');
  }
  return found;
};
const cpuBefore = process.cpuUsage();
const started = performance.now();
require(process.argv[1]);
const wallInMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(JSON.stringify([wallInMs, (cpu.user + cpu.system) / 1000]));
`;

export interface BundleInit {
  id: string;
  /** Median wall time of the `require`. */
  initInMs: number;
  /** Median CPU time of the `require` (user and system, every thread of the process). */
  initCpuInMs: number;
}

/**
 * The same-run baseline: a fresh Node process that starts and exits doing nothing, spawned right
 * after each bundle's probe, wall time from spawn to exit. Node's own start-up is fixed work, so its
 * median against the same on a quiet machine says how busy the machine was while the bundles were
 * measured (bench/BUNDLES.md, "Side files").
 */
export interface InitBaseline {
  nodeStartInMs: number;
}

const env = {
  ...process.env,
  AWS_SDK_JS_SUPPRESS_WARNINGS: '1',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  NODE_OPTIONS: functionNodeOptions,
};

/** The Node that Lambda's runtime matches: this one from 22 on, else the project's Node 22. */
function lambdaNode(): string {
  return Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : nodeFloor();
}
const median = (values: number[]) =>
  Number(
    percentile(
      [...values].sort((a, b) => a - b),
      0.5,
    ).toFixed(1),
  );

/** Init of the bundles already built in dist/functions (scripts/bundle.ts), in milliseconds, and the baseline of the same run. */
export async function measureBundleInit(
  ids: string[],
): Promise<{ inits: BundleInit[]; baseline: InitBaseline }> {
  const inits: BundleInit[] = [];
  const nodeStarts: number[] = [];
  const node = lambdaNode();
  for (const id of ids) {
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let attempt = 0; attempt < initRunsPerBundle; attempt++) {
      const { stdout } = await run(node, ['-e', probe, join(bundleOutputDir, id, 'index.js')], {
        env,
      });
      const [wallInMs, cpuInMs] = JSON.parse(stdout) as [number, number];
      walls.push(wallInMs);
      cpus.push(cpuInMs);
    }
    const started = performance.now();
    await run(node, ['-e', ''], { env });
    nodeStarts.push(performance.now() - started);
    inits.push({ id, initInMs: median(walls), initCpuInMs: median(cpus) });
  }
  return { inits, baseline: { nodeStartInMs: median(nodeStarts) } };
}
