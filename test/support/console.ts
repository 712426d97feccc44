/**
 * The console in headless Chromium: its address on a local service, signing in with a key, the
 * workflows whose runs fill its pages, and screenshots under `test-results/browser/console/`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { block, edge, graphOf } from '../../core/engine/builders';
import type { WorkflowGraph } from '../../core/engine/types';
import type { Tenant } from '../../support/api-client';
import { screenshotDir } from './browser';

export const consoleScreenshotDir = join(screenshotDir, 'console');

/** The console of a service (at 127.0.0.1: Chromium's loopback, as the form page tests use it). */
export function consoleUrlOf(serviceUrl: string, pollMs?: number): string {
  return `${serviceUrl.replace('localhost', '127.0.0.1')}/console/${pollMs ? `?pollMs=${pollMs}` : ''}`;
}

/** Opens the console at `hash` (`#/w/<ws>/logs?...`) and signs in there with `apiKey`. */
export async function signedIn(page: Page, url: string, apiKey: string, hash = ''): Promise<void> {
  await page.goto(`${url}${hash}`);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}

export async function consoleScreenshot(page: Page, name: string): Promise<void> {
  await mkdir(consoleScreenshotDir, { recursive: true });
  await page.screenshot({ path: join(consoleScreenshotDir, `${name}.png`), fullPage: true });
}

/**
 * start → loop of `iterations` (a Step function in its body) → Parse, which throws when `fail`:
 * a trace with one span per iteration, and a failing span after the loop.
 */
export function loopGraph(iterations: number, fail: boolean): WorkflowGraph {
  const step = {
    ...block('step', 'function', 'Step', { code: 'return <loop.index> * 2;' }),
    parentId: 'loop',
  };
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'text', type: 'string' }] }),
      block('loop', 'loop', 'Repeat', { loopType: 'for', iterations }),
      step,
      block('parse', 'function', 'Parse', {
        code: fail ? 'throw new Error("Unexpected token in the order")' : 'return { parsed: true };',
      }),
    ],
    [edge('start', 'loop'), edge('loop', 'parse')],
  );
}

/** Creates and deploys a workflow named `name`; answers its id. */
export async function namedWorkflow(tenant: Tenant, name: string, state: WorkflowGraph): Promise<string> {
  const created = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name,
    state,
  });
  if (created.status !== 201) throw new Error(`Workflow not created: ${JSON.stringify(created.body)}`);
  const deployed = await tenant.call('POST', `/api/workflows/${created.body.data.id}/deploy`);
  if (deployed.status !== 200) throw new Error(`Workflow not deployed: ${JSON.stringify(deployed.body)}`);
  return created.body.data.id;
}

/** Runs a deployed workflow by API call; answers its execution id (failed runs too). */
export async function ranOnce(
  tenant: Tenant,
  workflowId: string,
  input: Record<string, unknown> = {},
): Promise<string> {
  const answer = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, input);
  const executionId = answer.body?.metadata?.executionId;
  if (!executionId) throw new Error(`The run did not start: ${answer.status} ${JSON.stringify(answer.body)}`);
  return executionId;
}

/** How long a test waits for the page to show what the service answers: a loaded machine is slow. */
export const patience = { timeout: 10_000 };

/** For a test that makes many runs (or a long one) before it opens the page. */
export const slowTestTimeoutInMs = 90_000;
