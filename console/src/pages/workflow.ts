/** One workflow: its graph, deployment, schedule, webhooks, and a form to run it. */
import { useState } from 'preact/hooks';
import { ApiError, getData, pathOf, post } from '../api';
import { formatTime } from '../format';
import { GraphView } from '../graph';
import { html } from '../html';
import { hrefOf } from '../route';
import { RunForm } from '../run-form';
import type { InputField, Workflow, Workspace } from '../types';
import { ErrorNote, Loading, useAction, useAsync } from '../ui';
import { workflowsOf } from '../workflows-cache';
import { deploymentOf } from './workflows';

interface Schedule {
  cron?: string;
  rateMinutes?: number;
  timezone: string;
  enabled: boolean;
  nextRunAt: string | null;
  lastRunAt?: string;
  lastError?: string;
}

interface Webhook {
  id: string;
  path: string;
  url: string;
  hasSecret: boolean;
  createdAt: string;
}

export function WorkflowPage({ workspace, workflowId }: { workspace: Workspace; workflowId: string }) {
  const workflow = useAsync(() => getData<Workflow>(pathOf`/api/workflows/${workflowId}`), [workflowId]);
  const schedule = useAsync(
    () =>
      getData<Schedule>(pathOf`/api/workflows/${workflowId}/schedule`).catch((error) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    [workflowId],
  );
  const webhooks = useAsync(
    () => getData<Webhook[]>(pathOf`/api/workflows/${workflowId}/webhooks`),
    [workflowId],
  );
  const deployment = useAction();
  const [running, setRunning] = useState(false);
  const current = workflow.value;
  if (!current)
    return html`<${ErrorNote} error=${workflow.error} />${workflow.loading && html`<${Loading} what="the workflow" />`}`;
  const start = Object.values(current.state?.blocks ?? {}).find((block) => block.type === 'start');
  const fields = ((start?.config?.inputFormat as InputField[] | undefined) ?? []).filter(
    (field) => field.name,
  );
  const canWrite = workspace.permissions !== 'read';
  const change = (what: 'deploy' | 'undeploy') =>
    deployment.run(async () => {
      await post(pathOf`/api/workflows/${current.id}/${what}`);
      await workflowsOf(workspace.id, true);
      workflow.reload();
    });

  return html`<section>
    <p class="crumbs"><a href=${hrefOf(['w', workspace.id, 'workflows'])}>Workflows</a> ›</p>
    <h1>${current.name}</h1>
    ${current.description && html`<p>${current.description}</p>`}
    <div class="toolbar">
      ${deploymentOf(current.isDeployed, current.needsRedeployment)}
      ${current.deployedAt && html`<span class="muted">deployed ${formatTime(current.deployedAt)}</span>`}
      ${
        canWrite &&
        html`<button type="button" disabled=${deployment.busy} onClick=${() => change('deploy')}>${current.isDeployed ? 'Redeploy' : 'Deploy'}</button>
          ${current.isDeployed && html`<button type="button" disabled=${deployment.busy} onClick=${() => change('undeploy')}>Undeploy</button>`}
          <button type="button" aria-expanded=${running} onClick=${() => setRunning(!running)}>Run</button>`
      }
      <a href=${hrefOf(['w', workspace.id, 'logs'], { workflow: current.id })}>Its runs</a>
    </div>
    <${ErrorNote} error=${deployment.error} />
    ${running && html`<section class="panel"><h2>Run ${current.name}</h2><${RunForm} workspaceId=${workspace.id} workflow=${current} fields=${fields} /></section>`}
    <h2>Graph</h2>
    ${current.state && html`<${GraphView} graph=${current.state} label=${`Blocks of ${current.name}`} />`}
    <div class="columns">
      <section><h2>Schedule</h2>
        <${ErrorNote} error=${schedule.error} />
        ${schedule.value === null && html`<p>No schedule.</p>`}
        ${
          schedule.value &&
          html`<dl class="facts">
            <dt>Runs</dt><dd>${schedule.value.cron ? html`cron <code>${schedule.value.cron}</code>` : `every ${schedule.value.rateMinutes} min`} (${schedule.value.timezone})</dd>
            <dt>State</dt><dd>${schedule.value.enabled ? 'Enabled' : 'Paused'}</dd>
            <dt>Next run</dt><dd>${formatTime(schedule.value.nextRunAt)}</dd>
            <dt>Last run</dt><dd>${formatTime(schedule.value.lastRunAt)}</dd>
            ${schedule.value.lastError && html`<dt>Last error</dt><dd class="error-note">${schedule.value.lastError}</dd>`}
          </dl>`
        }
      </section>
      <section><h2>Webhooks</h2>
        <${ErrorNote} error=${webhooks.error} />
        ${webhooks.value?.length === 0 && html`<p>No webhook triggers.</p>`}
        ${
          webhooks.value?.length
            ? html`<ul>${webhooks.value.map((hook) => html`<li><code>${hook.url}</code> ${hook.hasSecret ? '(signed)' : '(no secret)'}</li>`)}</ul>`
            : null
        }
      </section>
    </div>
  </section>`;
}
