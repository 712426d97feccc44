/**
 * `npm start`: compiles the server if its sources changed since the last build
 * (scripts/build-server.mjs), then runs it in this same process, so the process `npm start`
 * launches is the server: SIGINT or SIGTERM to it stops the service and ends it (local/main.ts).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureServerBuild, projectRoot } from './build-server.mjs';

const outDir = process.env.SERVER_BUILD_DIR ?? join(projectRoot, 'dist', 'server');
const startedAt = Date.now();
if (await ensureServerBuild(outDir))
  console.log(`Compiled the server into ${outDir} (${Date.now() - startedAt} ms)`);
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(outDir, 'local', 'main.js')).href);
