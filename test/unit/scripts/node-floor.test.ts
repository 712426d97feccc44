import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { functionRuntime } from '../../../lib/constructs/service-function';
import { fromProjectRoot } from '../../../lib/project';
import { nodeFloorVersion } from '../../../scripts/node-floor';

const major = (version: string) => Number(/(\d+)/.exec(version)?.[1]);

describe('the Node floor', () => {
  it('is the same major version in engines, in what CI tests on, and in the Lambda runtime', () => {
    // Prepare
    const engines = JSON.parse(readFileSync(fromProjectRoot('package.json'), 'utf8')).engines.node as string;

    // Act
    const floors = [major(engines), major(nodeFloorVersion), major(functionRuntime.name)];

    // Assess
    expect(engines).toBe('>=22');
    expect(floors).toEqual([22, 22, 22]);
  });

  it('is what CI puts first on PATH when the machine has an older Node', () => {
    // Act
    const ci = readFileSync(fromProjectRoot('.ci/run'), 'utf8');

    // Assess: the floor's folder goes on PATH before npm test runs
    expect(ci.indexOf('PATH="$(npx tsx scripts/node-floor.ts):$PATH"')).toBeGreaterThan(-1);
    expect(ci.indexOf('scripts/node-floor.ts')).toBeLessThan(ci.indexOf('npm test'));
  });
});
