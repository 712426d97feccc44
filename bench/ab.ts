/**
 * Sync runs of two or more checkouts of the service, interleaved: each checkout's server in its own
 * process, all started at once. At one client, one request to each in turn (who goes first changes
 * every turn); at more (BENCH_CLIENTS), rounds of load that take turns the same way. On a machine
 * whose speed drifts by half within minutes, figures of runs taken one after the other differ by
 * more than most changes do; interleaved, every checkout sees the same drift, so they compare. The
 * servers idle while another answers, but share the CPU caches, so the figures are lower than a
 * lone server's: compare them with each other.
 *
 *   npx tsx bench/ab.ts <checkout> <checkout> [...]   BENCH_REQUESTS (default 3,000) each, after 1,000 warm-up each
 *   BENCH_CLIENTS=16 npx tsx bench/ab.ts ...          the same in 6 rounds of 16 clients (BENCH_ROUNDS)
 *
 * A checkout is a directory with the project (a `git worktree` of another commit, its node_modules
 * linked to this one's). Prints per checkout the p25, p50, p75 and mean of a request (at one client)
 * or the runs a second and the rounds' p50 (at more), against the first checkout's; writes
 * bench/results/ab.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { resolve } from 'node:path';
import { percentile, runLoad, send } from './load';
import { type BenchService, startBenchService } from './service-process';

const checkouts = process.argv.slice(2).filter((arg) => arg !== '--');
if (checkouts.length < 2)
  throw new Error('Name two or more checkouts: npx tsx bench/ab.ts <dir> <dir> [...]');
const requests = Number(process.env.BENCH_REQUESTS ?? 3000);
const clients = Number(process.env.BENCH_CLIENTS ?? 1);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const warmupRequests = 1000;

interface Server extends BenchService {
  checkout: string;
  agent: Agent;
  latenciesInMs: number[];
}

async function startServer(checkout: string): Promise<Server> {
  const service = await startBenchService(checkout);
  return { ...service, checkout, agent: new Agent({ keepAlive: true, maxSockets: 1 }), latenciesInMs: [] };
}

/** One sync run on `server`; anything but a 200 ends the comparison. */
async function sendTo(server: Server): Promise<void> {
  const status = await send(server.target, server.agent);
  if (status !== 200) throw new Error(`${server.checkout} answered HTTP ${status}`);
}

/** One request to each server in turn: every server's latencies, drift shared. */
async function interleaveRequests(servers: Server[]) {
  for (let turn = 0; turn < requests; turn++) {
    for (let next = 0; next < servers.length; next++) {
      const server = servers[(turn + next) % servers.length];
      const startedAt = performance.now();
      await sendTo(server);
      server.latenciesInMs.push(performance.now() - startedAt);
    }
  }
  return servers.map(({ checkout, latenciesInMs }) => {
    const sorted = [...latenciesInMs].sort((a, b) => a - b);
    const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
    return {
      checkout,
      p25InMs: Number(percentile(sorted, 0.25).toFixed(3)),
      p50InMs: Number(percentile(sorted, 0.5).toFixed(3)),
      p75InMs: Number(percentile(sorted, 0.75).toFixed(3)),
      meanInMs: Number(mean.toFixed(3)),
    };
  });
}

/** Rounds of `clients` clients, the servers taking turns: runs a second over all of a server's rounds. */
async function interleaveRounds(servers: Server[]) {
  const perClient = Math.ceil(requests / rounds / clients);
  const totals = servers.map(() => ({ requests: 0, durationInMs: 0, p50sInMs: [] as number[] }));
  for (let round = 0; round < rounds; round++) {
    for (let next = 0; next < servers.length; next++) {
      const index = (round + next) % servers.length;
      const load = await runLoad(servers[index].target, clients, perClient);
      if (load.errors > 0) throw new Error(`${servers[index].checkout} answered ${load.errors} errors`);
      totals[index].requests += load.requests;
      totals[index].durationInMs += load.durationInMs;
      totals[index].p50sInMs.push(load.p50InMs);
    }
  }
  return servers.map(({ checkout }, index) => ({
    checkout,
    runsPerSecond: Math.round((totals[index].requests / totals[index].durationInMs) * 1000),
    roundP50sInMs: totals[index].p50sInMs,
  }));
}

const servers = await Promise.all(checkouts.map((checkout) => startServer(resolve(checkout))));
try {
  for (let turn = 0; turn < warmupRequests; turn++) for (const server of servers) await sendTo(server);
  let figures: unknown[];
  if (clients === 1) {
    const measured = await interleaveRequests(servers);
    console.log(`Sync runs at one client, ${requests} each, interleaved`);
    for (const figure of measured) {
      const ratio = (figure.p50InMs / measured[0].p50InMs).toFixed(3);
      console.log(
        `${figure.checkout}: p25 ${figure.p25InMs} ms, p50 ${figure.p50InMs} ms (${ratio}× the first's), ` +
          `p75 ${figure.p75InMs} ms, mean ${figure.meanInMs} ms`,
      );
    }
    figures = measured;
  } else {
    const measured = await interleaveRounds(servers);
    console.log(`Sync runs at ${clients} clients, ${rounds} rounds each, taking turns`);
    for (const figure of measured) {
      const ratio = (figure.runsPerSecond / measured[0].runsPerSecond).toFixed(3);
      console.log(
        `${figure.checkout}: ${figure.runsPerSecond} runs/s (${ratio}× the first's), ` +
          `round p50s ${figure.roundP50sInMs.join(', ')} ms`,
      );
    }
    figures = measured;
  }
  const resultsDir = new URL('./results/', import.meta.url);
  await mkdir(resultsDir, { recursive: true });
  const file = new URL('ab.json', resultsDir);
  const result = { measuredAt: new Date().toISOString(), clients, requests, figures };
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log('Written to bench/results/ab.json');
} finally {
  for (const server of servers) {
    server.agent.destroy();
    await server.stop();
  }
}
