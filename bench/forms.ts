/**
 * Forms on the local emulators, one request at a time: the page itself (static), its config, and
 * submissions of a public and a password form, each against what it adds to: the page and the
 * config against `GET /api/health` (the server's floor), a submission against a webhook call of the
 * same workflow (the same asynchronous run, without the form's checks).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../local/service';
import { unreachableRateLimitsJson } from '../support/limits';
import { deployedWorkflow, request } from '../support/api-client';
import { makeClient } from '../support/service-client';
import { percentile } from './load';

export interface Latency {
  p50InMs: number;
  p99InMs: number;
}

export interface FormsBench {
  requests: number;
  health: Latency;
  page: Latency;
  config: Latency;
  webhookCall: Latency;
  publicSubmission: Latency;
  passwordSubmission: Latency;
}

async function latencyOf(requests: number, send: () => Promise<{ status: number }>): Promise<Latency> {
  for (let i = 0; i < 20; i++) await send();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const answer = await send();
    times.push(performance.now() - started);
    if (answer.status >= 300) throw new Error(`Bench request answered ${answer.status}`);
  }
  times.sort((a, b) => a - b);
  return {
    p50InMs: Number(percentile(times, 0.5).toFixed(2)),
    p99InMs: Number(percentile(times, 0.99).toFixed(2)),
  };
}

export async function benchForms(
  requests = Number(process.env.BENCH_FORM_REQUESTS ?? 300),
): Promise<FormsBench> {
  const saved = { ...process.env };
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-forms-'));
  const service = await startLocalService({ dataDir, port: 0, adminKey: 'bench-admin-key' });
  try {
    const tenant = await makeClient(service).newTenant('bench');
    const workflowId = await deployedWorkflow(tenant);
    const form = async (settings: Record<string, unknown>) => {
      const answer = await tenant.call('POST', '/api/forms', { workflowId, title: 'Bench', ...settings });
      if (answer.status !== 201) throw new Error(`Form not created: ${JSON.stringify(answer.body)}`);
      return answer.body.data.identifier as string;
    };
    const open = await form({ identifier: 'bench-public', authType: 'public' });
    const locked = await form({
      identifier: 'bench-password',
      authType: 'password',
      password: 'bench password',
    });
    const hook = await tenant.call('POST', `/api/workflows/${workflowId}/webhooks`, {});
    const body = { formData: { name: 'ada' } };
    const page = async () => {
      const response = await fetch(`${service.url}/form/${open}`);
      await response.arrayBuffer();
      return { status: response.status };
    };
    return {
      requests,
      health: await latencyOf(requests, () => request(service.url, 'GET', '/api/health')),
      page: await latencyOf(requests, page),
      config: await latencyOf(requests, () => request(service.url, 'GET', `/api/form/${open}`)),
      webhookCall: await latencyOf(requests, () =>
        request(service.url, 'POST', `/api/webhooks/trigger/${hook.body.data.path}`, {
          body: { name: 'ada' },
        }),
      ),
      publicSubmission: await latencyOf(requests, () =>
        request(service.url, 'POST', `/api/form/${open}`, { body }),
      ),
      passwordSubmission: await latencyOf(requests, () =>
        request(service.url, 'POST', `/api/form/${locked}`, {
          body: { ...body, password: 'bench password' },
        }),
      ),
    };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
    for (const name of ['POWERTOOLS_LOG_LEVEL', 'RATE_LIMITS_JSON', 'ADMIN_API_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

export function printFormsBench(bench: FormsBench): void {
  const line = (name: string, latency: Latency, base: Latency, baseName: string) =>
    `  ${name.padEnd(22)} p50 ${String(latency.p50InMs).padStart(6)} ms, p99 ${String(latency.p99InMs).padStart(6)} ms  (${(latency.p50InMs / base.p50InMs).toFixed(1)}× ${baseName})`;
  console.log(`\nForms on the local emulators, ${bench.requests} requests each, one at a time`);
  console.log(line('GET /api/health', bench.health, bench.health, 'health'));
  console.log(line('page /form/<id>', bench.page, bench.health, 'health'));
  console.log(line('config', bench.config, bench.health, 'health'));
  console.log(line('webhook call', bench.webhookCall, bench.webhookCall, 'webhook call'));
  console.log(line('public submission', bench.publicSubmission, bench.webhookCall, 'webhook call'));
  console.log(line('password submission', bench.passwordSubmission, bench.webhookCall, 'webhook call'));
}
