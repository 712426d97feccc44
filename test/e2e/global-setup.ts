/**
 * One `npm start` service per mode, shared by every file of the mode's project (vitest.config.ts):
 * a start costs seconds of CPU, and concurrent starts would also race on the server's build in
 * dist/server. Each test makes its own tenant, so sharing the service keeps the tests independent.
 */
import type { TestProject } from 'vitest/node';
import { type ServiceMode, serviceModes, startCompiledService } from '../support/compiled-service';
import { adminKey, serviceEnv } from './settings';

function modeOf(project: TestProject): ServiceMode {
  const mode = serviceModes.find((name) => project.name === `e2e-${name}`);
  if (!mode) throw new Error(`Project ${project.name} is not one of e2e-${serviceModes.join(', e2e-')}`);
  return mode;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const service = await startCompiledService({ mode: modeOf(project), adminKey, env: serviceEnv() });
  project.provide('e2eService', { mode: service.mode, url: service.url, adminKey, dataDir: service.dataDir });
  return async () => {
    // A service that died under the tests leaves them failing with refused connections: say why.
    if (!service.isRunning())
      console.error(`npm start (${service.mode}) ended during the tests:\n${service.output()}`);
    await service.stop();
  };
}
