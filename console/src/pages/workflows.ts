/** The workspace's workflows: deployment, last run, runs and error rate over 24 hours. */
import { formatTime } from '../format';
import { html } from '../html';
import { allLogEntries } from '../logs-api';
import { hrefOf } from '../route';
import type { LogItem, Workspace } from '../types';
import { ErrorNote, Loading, Status, useAsync } from '../ui';
import { useWorkflows } from '../workflows-cache';

const dayInMs = 86_400_000;
/** Enough for the table of a busy workspace; beyond it the counts say "at least". */
const maxEntriesRead = 5_000;

interface RunSummary {
  last?: LogItem;
  runs: number;
  errors: number;
}

export function Workflows({ workspace }: { workspace: Workspace }) {
  const workflows = useWorkflows(workspace.id);
  const day = useAsync(
    () =>
      allLogEntries(
        workspace.id,
        { startDate: new Date(Date.now() - dayInMs).toISOString() },
        maxEntriesRead,
      ),
    [workspace.id],
  );
  const summaries = new Map<string, RunSummary>();
  for (const entry of day.value?.entries ?? []) {
    const summary = summaries.get(entry.workflowId) ?? { runs: 0, errors: 0 };
    summary.last ??= entry;
    summary.runs += 1;
    if (entry.level === 'error') summary.errors += 1;
    summaries.set(entry.workflowId, summary);
  }
  const atLeast = day.value && !day.value.complete ? '≥ ' : '';

  return html`<section>
    <h1>Workflows</h1>
    <${ErrorNote} error=${workflows.error ?? day.error} />
    ${workflows.loading && !workflows.value && html`<${Loading} what="the workflows" />`}
    ${
      workflows.value &&
      html`<table class="data">
        <caption class="visually-hidden">Workflows of ${workspace.name}</caption>
        <thead><tr>
          <th scope="col">Name</th><th scope="col">Deployment</th><th scope="col">Last run</th>
          <th scope="col">Runs (24 h)</th><th scope="col">Error rate (24 h)</th>
        </tr></thead>
        <tbody>
          ${workflows.value.length === 0 && html`<tr><td colspan="5">No workflows yet.</td></tr>`}
          ${workflows.value.map((workflow) => {
            const summary = summaries.get(workflow.id);
            return html`<tr>
              <th scope="row"><a href=${hrefOf(['w', workspace.id, 'workflows', workflow.id])}>${workflow.name}</a></th>
              <td>${deploymentOf(workflow.isDeployed, workflow.needsRedeployment)}</td>
              <td>${
                summary?.last
                  ? html`<a href=${hrefOf(['w', workspace.id, 'runs', summary.last.id])}><${Status} status=${summary.last.level} /></a> ${formatTime(summary.last.startedAt)}`
                  : day.loading
                    ? '…'
                    : 'No run in 24 h'
              }</td>
              <td class="number">${summary ? `${atLeast}${summary.runs}` : day.loading ? '…' : '0'}</td>
              <td class="number">${summary ? `${Math.round((100 * summary.errors) / summary.runs)} %` : '–'}</td>
            </tr>`;
          })}
        </tbody>
      </table>`
    }
  </section>`;
}

export function deploymentOf(isDeployed: boolean, needsRedeployment?: boolean) {
  if (!isDeployed) return html`<span class="badge">○ Not deployed</span>`;
  if (needsRedeployment) return html`<span class="badge warn">◐ Deployed, needs redeployment</span>`;
  return html`<span class="badge ok">● Deployed</span>`;
}
