/**
 * The two servers the benchmark compares, each started in its own process so the load generator
 * does not share their event loop. Prints one JSON line `{url, ...}` when ready.
 *   tsx bench/servers.ts service <dataDir>   the workflow service with a deployed 3-block workflow
 *   tsx bench/servers.ts baseline            a bare node:http server answering JSON
 * With BENCH_PROFILE_FILE set, the service process samples its CPU from the moment it is ready
 * until it is stopped, and writes the profile there (bench/profile.ts), so that setting up the
 * stack and the tenants stays out of it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { startLocalService } from '../local/service';
import { unreachableRateLimitsJson } from '../support/limits';
import { deployedWorkflow } from '../support/api-client';
import { makeClient } from '../support/service-client';
import { exampleWorkflows } from '../local/seed';

async function service(dataDir: string) {
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  // Every request still draws its token; the limits are only set out of the load's reach.
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  const running = await startLocalService({ dataDir, port: 0, host: '127.0.0.1' });
  const client = makeClient(running);
  const hello = exampleWorkflows.find((workflow) => workflow.name === 'Hello')!;
  const user = async (name: string) => {
    const tenant = await client.newTenant(name);
    const workflowId = await deployedWorkflow(tenant, hello.state);
    return {
      path: `/api/workflows/${workflowId}/execute`,
      headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
    };
  };
  const main = await user('bench');
  // Sixteen more users with the same workflow: load spread over users, as a service has it.
  const users = [];
  for (let index = 0; index < 16; index++) users.push(await user(`bench-${index}`));
  return {
    url: running.url.replace('localhost', '127.0.0.1'),
    ...main,
    body: JSON.stringify(hello.sampleInput),
    users,
  };
}

/** The same answer as one done frame and the end marker, as the service streams a short run. */
function streamBaseline(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const done = {
      event: 'done',
      success: true,
      output: { greeting: `Hello, ${input.name}!` },
      metadata: { duration: 0 },
    };
    response.write(`data: ${JSON.stringify(done)}\n\n`);
    response.end('data: [DONE]\n\n');
  });
}

async function baseline() {
  const server = createServer((request, response) => {
    if (request.url === '/stream') return streamBaseline(request, response);
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: true, output: { greeting: `Hello, ${input.name}!` } }));
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    path: '/execute',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Ada' }),
  };
}

/** Starts sampling; the returned function stops it and writes the profile to `file`. */
async function startProfiler(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
  };
}

const [mode, dataDir] = process.argv.slice(2);
const target = mode === 'service' ? await service(dataDir) : await baseline();
const profileFile = process.env.BENCH_PROFILE_FILE;
const stopProfiler = profileFile ? await startProfiler(profileFile) : undefined;
process.stdout.write(`${JSON.stringify(target)}\n`);

// Exit through process.exit so --cpu-prof and other exit hooks run when the benchmark stops us.
process.once('SIGTERM', () => {
  if (!stopProfiler) process.exit(0);
  stopProfiler().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
