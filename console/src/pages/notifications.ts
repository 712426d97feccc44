/**
 * The workspace's notification subscriptions: their channel, filters and alert rule; create, edit,
 * delete and "Send test"; each one's recent deliveries with status, attempts and next retry.
 */
import { useState } from 'preact/hooks';
import { del, getData, pathOf, post, put } from '../api';
import { formatTime } from '../format';
import { html } from '../html';
import { triggers, type Workspace } from '../types';
import { ErrorNote, Loading, Status, useAction, useAsync } from '../ui';
import { nameOf, useWorkflows } from '../workflows-cache';

interface Subscription {
  id: string;
  channel: 'webhook' | 'email' | 'chat';
  workflowIds: string[];
  allWorkflows: boolean;
  levelFilter: string[];
  triggerFilter: string[];
  webhook?: { url: string; hasSecret: boolean };
  email?: { recipients: string[] };
  chat?: { webhookUrl?: string; channel?: string; hasToken?: boolean };
  alert?: { rule: string; threshold?: number; windowHours?: number };
  active: boolean;
}

interface Delivery {
  id: string;
  eventId: string;
  status: string;
  attempts: number;
  responseStatus?: number;
  error?: string;
  createdAt: string;
  nextAttemptAt?: string;
}

const alertRules = [
  ['consecutive_failures', 'Consecutive failures', 'runs'],
  ['failure_rate', 'Failure rate', '%'],
  ['latency_threshold', 'Run longer than', 's'],
  ['latency_spike', 'Latency spike', '%'],
  ['cost_threshold', 'Run costs more than', 'USD'],
  ['no_activity', 'No activity for', 'hours'],
  ['error_count', 'Error count', 'runs'],
] as const;

function targetOf(subscription: Subscription): string {
  if (subscription.webhook)
    return `${subscription.webhook.url}${subscription.webhook.hasSecret ? ' (signed)' : ''}`;
  if (subscription.email) return subscription.email.recipients.join(', ');
  if (subscription.chat) return subscription.chat.webhookUrl ?? `Slack #${subscription.chat.channel ?? ''}`;
  return '–';
}

export function Notifications({ workspace }: { workspace: Workspace }) {
  const base = pathOf`/api/workspaces/${workspace.id}/notifications`;
  const list = useAsync(() => getData<Subscription[]>(base), [base]);
  const workflows = useWorkflows(workspace.id);
  const [editing, setEditing] = useState<Subscription | 'new' | undefined>();
  const [showing, setShowing] = useState<string | undefined>();
  const [deliveriesRound, setDeliveriesRound] = useState(0);
  const action = useAction();
  const canWrite = workspace.permissions !== 'read';

  const sendTest = (id: string) =>
    action.run(async () => {
      await post(`${base}/${encodeURIComponent(id)}/test`);
      setShowing(id);
      setDeliveriesRound((round) => round + 1);
    });
  const remove = (subscription: Subscription) =>
    action.run(async () => {
      if (!confirm(`Delete the ${subscription.channel} notification to ${targetOf(subscription)}?`)) return;
      await del(`${base}/${encodeURIComponent(subscription.id)}`);
      list.reload();
    });

  return html`<section>
    <h1>Notifications</h1>
    ${canWrite && html`<div class="toolbar"><button type="button" onClick=${() => setEditing('new')}>New notification</button></div>`}
    ${
      editing &&
      html`<${SubscriptionForm} base=${base} subscription=${editing === 'new' ? undefined : editing}
        workflows=${workflows.value ?? []} onDone=${(saved: boolean) => {
          setEditing(undefined);
          if (saved) list.reload();
        }} />`
    }
    <${ErrorNote} error=${list.error ?? action.error} />
    ${list.loading && !list.value && html`<${Loading} what="the notifications" />`}
    ${list.value?.length === 0 && html`<p>No notifications yet.</p>`}
    ${
      list.value?.length
        ? html`<table class="data">
          <thead><tr><th scope="col">Channel</th><th scope="col">Sends to</th><th scope="col">Workflows</th><th scope="col">Runs</th><th scope="col">Alert rule</th><th scope="col">Actions</th></tr></thead>
          <tbody>${list.value.map(
            (subscription) => html`<tr>
              <th scope="row">${subscription.channel}${subscription.active ? '' : ' (paused)'}</th>
              <td>${targetOf(subscription)}</td>
              <td>${subscription.allWorkflows ? 'All workflows' : subscription.workflowIds.map((id) => nameOf(workflows.value, id)).join(', ')}</td>
              <td>${subscription.levelFilter.length === 2 || subscription.levelFilter.length === 0 ? 'All' : subscription.levelFilter.map((level) => (level === 'error' ? 'Errors' : 'Successes')).join(', ')}
                ${subscription.triggerFilter.length && subscription.triggerFilter.length < triggers.length ? html`<br /><span class="muted">via ${subscription.triggerFilter.join(', ')}</span>` : ''}</td>
              <td>${subscription.alert ? `${subscription.alert.rule}${subscription.alert.threshold !== undefined ? ` > ${subscription.alert.threshold}` : ''}` : 'Every matching run'}</td>
              <td class="actions">
                ${canWrite && html`<button type="button" onClick=${() => sendTest(subscription.id)} disabled=${action.busy}>Send test</button>`}
                <button type="button" aria-expanded=${showing === subscription.id} onClick=${() => setShowing(showing === subscription.id ? undefined : subscription.id)}>Deliveries</button>
                ${
                  canWrite &&
                  html`<button type="button" onClick=${() => setEditing(subscription)}>Edit</button>
                  <button type="button" onClick=${() => remove(subscription)}>Delete</button>`
                }
              </td>
            </tr>`,
          )}</tbody>
        </table>`
        : null
    }
    ${showing && html`<${Deliveries} path=${`${base}/${encodeURIComponent(showing)}/deliveries`} round=${deliveriesRound} />`}
  </section>`;
}

function Deliveries({ path, round }: { path: string; round: number }) {
  const deliveries = useAsync(() => getData<Delivery[]>(path), [path, round]);
  return html`<section class="panel" aria-label="Recent deliveries">
    <h2>Recent deliveries <button type="button" onClick=${deliveries.reload}>Refresh</button></h2>
    <${ErrorNote} error=${deliveries.error} />
    ${deliveries.value?.length === 0 && html`<p>No deliveries yet.</p>`}
    ${
      deliveries.value?.length
        ? html`<table class="data deliveries">
      <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="number">Attempts</th><th scope="col">Last answer</th><th scope="col">Next retry</th></tr></thead>
      <tbody>${deliveries.value.map(
        (delivery) => html`<tr>
          <td>${formatTime(delivery.createdAt)}</td><td><code>${delivery.eventId}</code></td>
          <td>${delivery.status === 'failed' ? html`<${Status} status="error" /> (failed)` : html`<${Status} status=${delivery.status === 'in_progress' ? 'running' : delivery.status} />`}</td>
          <td class="number">${delivery.attempts}</td>
          <td>${delivery.responseStatus ?? ''} ${delivery.error ?? ''}</td>
          <td>${delivery.nextAttemptAt ? formatTime(delivery.nextAttemptAt) : '–'}</td>
        </tr>`,
      )}</tbody>
    </table>`
        : null
    }
  </section>`;
}

function SubscriptionForm({
  base,
  subscription,
  workflows,
  onDone,
}: {
  base: string;
  subscription?: Subscription;
  workflows: { id: string; name: string }[];
  onDone(saved: boolean): void;
}) {
  const [channel, setChannel] = useState(subscription?.channel ?? 'webhook');
  const [allWorkflows, setAllWorkflows] = useState(subscription?.allWorkflows ?? true);
  const [rule, setRule] = useState(subscription?.alert?.rule ?? '');
  const action = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const levels = form.getAll('level').map(String);
    const chosenTriggers = form.getAll('trigger').map(String);
    const body: Record<string, unknown> = {
      channel,
      allWorkflows,
      ...(allWorkflows ? {} : { workflowIds: form.getAll('workflow').map(String) }),
      ...(levels.length ? { levelFilter: levels } : {}),
      ...(chosenTriggers.length ? { triggerFilter: chosenTriggers } : {}),
    };
    if (channel === 'webhook')
      body.webhook = { url: text('url'), ...(text('secret') ? { secret: text('secret') } : {}) };
    if (channel === 'email')
      body.email = {
        recipients: text('recipients')
          .split(/[,\s]+/)
          .filter(Boolean),
      };
    if (channel === 'chat') body.chat = { webhookUrl: text('chatUrl') };
    if (rule)
      body.alert = {
        rule,
        ...(text('threshold') ? { threshold: Number(text('threshold')) } : {}),
        ...(text('windowHours') ? { windowHours: Number(text('windowHours')) } : {}),
      };
    void action.run(async () => {
      if (subscription) await put(`${base}/${encodeURIComponent(subscription.id)}`, body);
      else await post(base, body);
      onDone(true);
    });
  };

  const levels = subscription?.levelFilter ?? [];
  const chosen = subscription?.triggerFilter ?? [];
  return html`<form class="panel subscription-form" onSubmit=${submit} aria-label=${subscription ? 'Edit the notification' : 'New notification'}>
    <h2>${subscription ? 'Edit the notification' : 'New notification'}</h2>
    <label>Channel
      <select value=${channel} onChange=${(event: Event) => setChannel((event.target as HTMLSelectElement).value as Subscription['channel'])}>
        <option value="webhook">Webhook</option><option value="email">E-mail</option><option value="chat">Slack</option>
      </select></label>
    ${
      channel === 'webhook' &&
      html`<label>Webhook URL <input name="url" type="url" required value=${subscription?.webhook?.url ?? ''} /></label>
        <label>Signing secret (8+ characters${subscription?.webhook?.hasSecret ? '; empty keeps the current one' : ', optional'}) <input name="secret" type="password" autocomplete="off" minlength="8" /></label>`
    }
    ${channel === 'email' && html`<label>Recipients (comma separated) <input name="recipients" required value=${subscription?.email?.recipients.join(', ') ?? ''} /></label>`}
    ${channel === 'chat' && html`<label>Slack incoming webhook URL <input name="chatUrl" type="url" required value=${subscription?.chat?.webhookUrl ?? ''} /></label>`}
    <fieldset><legend>Workflows</legend>
      <label class="checkbox"><input type="checkbox" checked=${allWorkflows} onChange=${(event: Event) => setAllWorkflows((event.target as HTMLInputElement).checked)} /> All workflows, including later ones</label>
      ${!allWorkflows && workflows.map((workflow) => html`<label class="checkbox"><input type="checkbox" name="workflow" value=${workflow.id} checked=${subscription?.workflowIds.includes(workflow.id)} /> ${workflow.name}</label>`)}
    </fieldset>
    <fieldset><legend>Runs that end with (none checked: all)</legend>
      <label class="checkbox"><input type="checkbox" name="level" value="info" checked=${levels.includes('info') && levels.length === 1} /> Success</label>
      <label class="checkbox"><input type="checkbox" name="level" value="error" checked=${levels.includes('error') && levels.length === 1} /> Error</label>
    </fieldset>
    <fieldset><legend>Started by (none checked: all)</legend>
      ${triggers.map((trigger) => html`<label class="checkbox"><input type="checkbox" name="trigger" value=${trigger} checked=${chosen.length < triggers.length && chosen.includes(trigger)} /> ${trigger}</label>`)}
    </fieldset>
    <label>Alert rule
      <select value=${rule} onChange=${(event: Event) => setRule((event.target as HTMLSelectElement).value)}>
        <option value="">None: every matching run</option>
        ${alertRules.map(([id, label]) => html`<option value=${id}>${label}</option>`)}
      </select></label>
    ${
      rule &&
      html`<label>Threshold (${alertRules.find(([id]) => id === rule)?.[2]}; empty: the rule's default) <input name="threshold" type="number" step="any" min="0" value=${subscription?.alert?.threshold ?? ''} /></label>
        <label>Window in hours (empty: the rule's default) <input name="windowHours" type="number" step="any" min="0" value=${subscription?.alert?.windowHours ?? ''} /></label>`
    }
    <div class="toolbar">
      <button type="submit" disabled=${action.busy}>${subscription ? 'Save' : 'Create'}</button>
      <button type="button" onClick=${() => onDone(false)}>Cancel</button>
    </div>
    <${ErrorNote} error=${action.error} />
  </form>`;
}
