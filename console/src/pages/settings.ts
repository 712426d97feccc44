/**
 * Settings: the caller's API keys (a new key shown once, with a copy button; revoke), the
 * workspace's environment variables (names; set or replace a value), usage and limits, and forms.
 */
import { useState } from 'preact/hooks';
import { del, get, getData, pathOf, post, put } from '../api';
import { formatCost, formatTime } from '../format';
import { html } from '../html';
import { currentCredential } from '../session';
import type { Workspace } from '../types';
import { ErrorNote, Loading, useAction, useAsync } from '../ui';
import { nameOf, useWorkflows } from '../workflows-cache';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt?: string;
}

interface Bucket {
  isLimited: boolean;
  limit: number;
  remaining: number;
  resetAt: string;
}

interface UsageLimits {
  rateLimit: { sync: Bucket; async: Bucket };
  usage: { currentPeriodCost: number; limit: number | null; plan: string };
}

interface Form {
  id: string;
  workflowId: string;
  identifier: string;
  title: string;
  authType: string;
  url: string;
}

export function Settings({ workspace }: { workspace: Workspace }) {
  return html`<section class="settings">
    <h1>Settings</h1>
    <${ApiKeys} />
    <${Environment} workspace=${workspace} />
    <${Usage} />
    <${Forms} workspace=${workspace} />
  </section>`;
}

function ApiKeys() {
  const keys = useAsync(() => getData<ApiKey[]>('/api/users/me/api-keys'), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const [copied, setCopied] = useState(false);
  const action = useAction();
  const signedInWith = currentCredential();
  const ownPrefix = signedInWith?.kind === 'apiKey' ? signedInWith.apiKey : undefined;

  const create = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = await post<{ data: ApiKey & { key: string } }>(
        '/api/users/me/api-keys',
        name.trim() ? { name: name.trim() } : {},
      );
      setCreated({ name: answer.data.name, key: answer.data.key });
      setCopied(false);
      setName('');
      keys.reload();
    });
  };
  const revoke = (key: ApiKey) =>
    action.run(async () => {
      if (!confirm(`Revoke the API key "${key.name}" (${key.prefix}…)? Calls with it will be refused.`))
        return;
      await del(pathOf`/api/users/me/api-keys/${key.id}`);
      keys.reload();
    });
  const copy = async () => {
    if (!created) return;
    await navigator.clipboard.writeText(created.key);
    setCopied(true);
  };

  return html`<section aria-labelledby="api-keys-title">
    <h2 id="api-keys-title">API keys</h2>
    <form class="inline-form" onSubmit=${create}>
      <label>Name of the new key <input value=${name} maxlength="100" onInput=${(event: Event) => setName((event.target as HTMLInputElement).value)} /></label>
      <button type="submit" disabled=${action.busy}>Create API key</button>
    </form>
    ${
      created &&
      html`<div class="panel new-key" role="status">
        <p><strong>Your new key "${created.name}".</strong> Copy it now: it is shown only once.</p>
        <label>New API key <input readonly value=${created.key} onFocus=${(event: Event) => (event.target as HTMLInputElement).select()} /></label>
        <button type="button" onClick=${() => copy().catch(() => setCopied(false))}>${copied ? 'Copied ✓' : 'Copy'}</button>
        <button type="button" onClick=${() => setCreated(undefined)}>Done</button>
      </div>`
    }
    <${ErrorNote} error=${keys.error ?? action.error} />
    ${keys.loading && !keys.value && html`<${Loading} what="your API keys" />`}
    ${
      keys.value &&
      html`<table class="data">
        <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
        <tbody>${keys.value.map(
          (key) => html`<tr>
            <th scope="row">${key.name}</th><td><code>${key.prefix}…</code>${ownPrefix?.startsWith(key.prefix) ? html` <span class="muted">(this session)</span>` : ''}</td>
            <td>${formatTime(key.createdAt)}</td>
            <td><button type="button" aria-label=${`Revoke ${key.name}`} onClick=${() => revoke(key)}>Revoke</button></td>
          </tr>`,
        )}</tbody>
      </table>`
    }
  </section>`;
}

function Environment({ workspace }: { workspace: Workspace }) {
  const base = pathOf`/api/workspaces/${workspace.id}/environment`;
  const variables = useAsync(() => getData<{ name: string; updatedAt: string }[]>(base), [base]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const action = useAction();
  const canWrite = workspace.permissions !== 'read';
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await put(`${base}/${encodeURIComponent(name.trim())}`, { value });
      setName('');
      setValue('');
      variables.reload();
    });
  };
  return html`<section aria-labelledby="environment-title">
    <h2 id="environment-title">Environment variables</h2>
    <p class="muted">Workflows read them as <code>{{NAME}}</code>. Values are stored encrypted and not shown here.</p>
    <${ErrorNote} error=${variables.error ?? action.error} />
    ${variables.value?.length === 0 && html`<p>No variables yet.</p>`}
    ${
      variables.value?.length
        ? html`<table class="data">
        <thead><tr><th scope="col">Name</th><th scope="col">Changed</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
        <tbody>${variables.value.map(
          (
            variable,
          ) => html`<tr><th scope="row"><code>${variable.name}</code></th><td>${formatTime(variable.updatedAt)}</td>
            ${
              canWrite &&
              html`<td><button type="button" onClick=${() => setName(variable.name)} aria-label=${`Replace the value of ${variable.name}`}>Replace value</button>
              <button type="button" aria-label=${`Delete ${variable.name}`} onClick=${() =>
                action.run(async () => {
                  if (!confirm(`Delete ${variable.name}?`)) return;
                  await del(`${base}/${encodeURIComponent(variable.name)}`);
                  variables.reload();
                })}>Delete</button></td>`
            }</tr>`,
        )}</tbody></table>`
        : null
    }
    ${
      canWrite &&
      html`<form class="inline-form" onSubmit=${save}>
        <label>Variable name <input required pattern="[A-Za-z_][A-Za-z0-9_]*" value=${name} onInput=${(event: Event) => setName((event.target as HTMLInputElement).value)} /></label>
        <label>Value <input type="password" autocomplete="off" value=${value} onInput=${(event: Event) => setValue((event.target as HTMLInputElement).value)} /></label>
        <button type="submit" disabled=${action.busy}>Set value</button>
      </form>`
    }
  </section>`;
}

function Usage() {
  const usage = useAsync(() => get<UsageLimits>('/api/users/me/usage-limits'), []);
  const value = usage.value;
  const share = value?.usage.limit
    ? Math.min(100, (100 * value.usage.currentPeriodCost) / value.usage.limit)
    : 0;
  return html`<section aria-labelledby="usage-title">
    <h2 id="usage-title">Usage and limits</h2>
    <${ErrorNote} error=${usage.error} />
    ${
      value &&
      html`<dl class="facts">
        <dt>Plan</dt><dd>${value.usage.plan}</dd>
        <dt>This month</dt><dd>${formatCost(value.usage.currentPeriodCost)} of ${value.usage.limit === null ? 'no limit' : formatCost(value.usage.limit)}
          ${value.usage.limit !== null && html` <progress max="100" value=${share} aria-label="Share of the usage limit">${share.toFixed(0)} %</progress> ${share.toFixed(1)} %`}</dd>
        ${(['sync', 'async'] as const).map(
          (kind) => html`<dt>${kind === 'sync' ? 'Sync runs' : 'Async runs'}</dt>
            <dd>${value.rateLimit[kind].remaining} of ${value.rateLimit[kind].limit} a minute left${value.rateLimit[kind].isLimited ? ' (limited now)' : ''}</dd>`,
        )}
      </dl>`
    }
  </section>`;
}

function Forms({ workspace }: { workspace: Workspace }) {
  const forms = useAsync(() => getData<Form[]>('/api/forms', { workspaceId: workspace.id }), [workspace.id]);
  const workflows = useWorkflows(workspace.id);
  return html`<section aria-labelledby="forms-title">
    <h2 id="forms-title">Forms</h2>
    <${ErrorNote} error=${forms.error} />
    ${forms.value?.length === 0 && html`<p>No forms yet.</p>`}
    ${
      forms.value?.length
        ? html`<table class="data"><thead><tr><th scope="col">Title</th><th scope="col">Workflow</th><th scope="col">Access</th><th scope="col">Page</th></tr></thead>
        <tbody>${forms.value.map(
          (
            form,
          ) => html`<tr><th scope="row">${form.title}</th><td>${nameOf(workflows.value, form.workflowId)}</td><td>${form.authType}</td>
            <td><a href=${form.url} target="_blank" rel="noopener">${form.url}</a></td></tr>`,
        )}</tbody></table>`
        : null
    }
  </section>`;
}
