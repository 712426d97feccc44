/**
 * Runs, errors and p50/p95 duration per hour over 24 hours or per day over 30 days, from the
 * metrics route (counters the service keeps as runs end), and the workflows that fail most.
 */
import { useMemo } from 'preact/hooks';
import { get } from '../api';
import { Chart, type Series } from '../chart';
import { formatCount, formatDuration } from '../format';
import { html } from '../html';
import { hrefOf, navigate } from '../route';
import type { MetricsAnswer, Workspace } from '../types';
import { ErrorNote, Loading, useAsync } from '../ui';
import { nameOf, useWorkflows } from '../workflows-cache';

const hourInMs = 3_600_000;
const ranges = {
  '24h': { label: 'Last 24 hours', bucket: 'hour', spanInMs: 24 * hourInMs, stepInMs: hourInMs },
  '30d': { label: 'Last 30 days', bucket: 'day', spanInMs: 30 * 24 * hourInMs, stepInMs: 24 * hourInMs },
} as const;

export function Dashboard({ workspace, params }: { workspace: Workspace; params: URLSearchParams }) {
  const rangeId = params.get('range') === '30d' ? '30d' : '24h';
  const range = ranges[rangeId];
  const workflows = useWorkflows(workspace.id);
  const period = useMemo(() => {
    const to = Date.now();
    // Whole buckets: the first one starts at the top of its hour (UTC day).
    const from = Math.floor((to - range.spanInMs) / range.stepInMs) * range.stepInMs + range.stepInMs;
    return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  }, [range]);
  const metrics = useAsync(
    () =>
      get<MetricsAnswer>('/api/v1/metrics', {
        workspaceId: workspace.id,
        ...period,
        bucket: range.bucket,
      }),
    [workspace.id, period],
  );
  const buckets = metrics.value?.data ?? [];
  const totals = buckets.reduce(
    (sum, bucket) => ({ runs: sum.runs + bucket.runs, errors: sum.errors + bucket.errors }),
    { runs: 0, errors: 0 },
  );
  const times = useMemo(() => buckets.map((bucket) => Date.parse(bucket.start) / 1000), [buckets]);
  const runSeries = useMemo<Series[]>(
    () => [
      { label: 'Runs', values: buckets.map((bucket) => bucket.runs), stroke: '#2563eb', bars: true },
      { label: 'Errors', values: buckets.map((bucket) => bucket.errors), stroke: '#b91c1c', dash: [6, 3] },
    ],
    [buckets],
  );
  const durationSeries = useMemo<Series[]>(
    () => [
      { label: 'p50', values: buckets.map((bucket) => bucket.p50Ms), stroke: '#047857' },
      { label: 'p95', values: buckets.map((bucket) => bucket.p95Ms), stroke: '#7c3aed', dash: [6, 3] },
    ],
    [buckets],
  );
  // From the same counters: the workflows with the most failed runs in the period.
  const failing = (metrics.value?.topFailingWorkflows ?? []).filter((workflow) => workflow.errors > 0);

  return html`<section class="dashboard">
    <h1>Dashboard</h1>
    <div class="toolbar" role="group" aria-label="Period">
      ${Object.entries(ranges).map(
        ([id, each]) =>
          html`<button type="button" aria-pressed=${id === rangeId} onClick=${() =>
            navigate(hrefOf(['w', workspace.id, 'dashboard'], { range: id === '24h' ? undefined : id }), {
              replace: true,
            })}>${each.label}</button>`,
      )}
    </div>
    <${ErrorNote} error=${metrics.error} />
    ${metrics.loading && !metrics.value && html`<${Loading} what="the metrics" />`}
    ${
      metrics.value &&
      html`<dl class="totals">
          <div><dt>Runs</dt><dd data-total="runs">${formatCount(totals.runs)}</dd></div>
          <div><dt>Errors</dt><dd data-total="errors">${formatCount(totals.errors)}</dd></div>
          <div><dt>Error rate</dt><dd>${totals.runs ? `${((100 * totals.errors) / totals.runs).toFixed(1)} %` : '–'}</dd></div>
        </dl>
        <div class="charts">
          <${Chart} title=${`Runs and errors per ${range.bucket}`} times=${times} stepInSeconds=${range.stepInMs / 1000} series=${runSeries} unit="runs" />
          <${Chart} title=${`Duration per ${range.bucket} (p50, p95)`} times=${times} stepInSeconds=${range.stepInMs / 1000} series=${durationSeries} unit="ms" />
        </div>
        <details><summary>The numbers as a table</summary>
          <table class="data">
            <thead><tr><th scope="col">${range.bucket === 'hour' ? 'Hour' : 'Day'} starting</th><th scope="col" class="number">Runs</th><th scope="col" class="number">Errors</th><th scope="col" class="number">p50</th><th scope="col" class="number">p95</th></tr></thead>
            <tbody>${buckets.map(
              (bucket) =>
                html`<tr><th scope="row">${new Date(bucket.start).toLocaleString()}</th><td class="number">${bucket.runs}</td><td class="number">${bucket.errors}</td><td class="number">${formatDuration(bucket.p50Ms)}</td><td class="number">${formatDuration(bucket.p95Ms)}</td></tr>`,
            )}</tbody>
          </table>
        </details>`
    }
    <h2>Workflows that fail most</h2>
    ${metrics.value && failing.length === 0 && html`<p>No failed runs in this period.</p>`}
    ${
      failing.length > 0 &&
      html`<table class="data">
        <thead><tr><th scope="col">Workflow</th><th scope="col" class="number">Failed runs</th><th scope="col" class="number">Runs</th><th scope="col" class="number">Error rate</th></tr></thead>
        <tbody>${failing.map(
          ({ workflowId, runs, errors }) =>
            html`<tr><th scope="row"><a href=${hrefOf(['w', workspace.id, 'logs'], { workflow: workflowId, level: 'error', range: rangeId === '24h' ? undefined : '7d' })}>${nameOf(workflows.value, workflowId)}</a></th>
              <td class="number">${errors}</td><td class="number">${runs}</td><td class="number">${((100 * errors) / runs).toFixed(0)} %</td></tr>`,
        )}</tbody>
      </table>`
    }
  </section>`;
}
