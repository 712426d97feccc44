/** The console's frame: sign-in, the workspace picker, the navigation, and the page of the address. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, getData, whenUnauthorized } from './api';
import { html } from './html';
import { Dashboard } from './pages/dashboard';
import { Logs } from './pages/logs';
import { Notifications } from './pages/notifications';
import { Run } from './pages/run';
import { Settings } from './pages/settings';
import { WorkflowPage } from './pages/workflow';
import { Workflows } from './pages/workflows';
import { hrefOf, navigate, useRoute } from './route';
import { currentCredential, forgetCredential } from './session';
import { SignIn } from './sign-in';
import { type ConsoleConfig, ssoSignOut } from './sso';
import type { Workspace } from './types';
import { ErrorNote, Loading, useAsync } from './ui';
import { forgetWorkflows } from './workflows-cache';

const sections = [
  ['workflows', 'Workflows'],
  ['logs', 'Logs'],
  ['dashboard', 'Dashboard'],
  ['notifications', 'Notifications'],
  ['settings', 'Settings'],
] as const;

export function App({ config, startError }: { config: ConsoleConfig; startError?: unknown }) {
  const [signedIn, setSignedIn] = useState(currentCredential() !== undefined);
  const [signInError, setSignInError] = useState<unknown>(startError);
  useEffect(() => {
    whenUnauthorized((error: ApiError) => {
      forgetCredential();
      setSignInError(error);
      setSignedIn(false);
    });
  }, []);
  if (!signedIn)
    return html`<${SignIn} sso=${config.sso} initialError=${signInError} onSignedIn=${() => {
      setSignInError(undefined);
      setSignedIn(true);
    }} />`;
  const signOut = () => {
    const wasSso = currentCredential()?.kind === 'idToken';
    forgetCredential();
    forgetWorkflows();
    setSignedIn(false);
    if (wasSso && config.sso) ssoSignOut(config.sso);
  };
  return html`<${Shell} onSignOut=${signOut} />`;
}

function Shell({ onSignOut }: { onSignOut(): void }) {
  const route = useRoute();
  const workspaces = useAsync(() => getData<Workspace[]>('/api/workspaces'), []);
  const [root, workspaceId, section = 'workflows', ...rest] = route.segments;
  const list = workspaces.value;
  useEffect(() => {
    // One workspace: straight to it; the picker is for several.
    if (list?.length === 1 && root !== 'w')
      navigate(hrefOf(['w', list[0].id, 'workflows']), { replace: true });
  }, [list, root]);
  const workspace = root === 'w' ? list?.find((candidate) => candidate.id === workspaceId) : undefined;

  return html`<div class="shell">
    <header class="top">
      <a class="brand" href="#/">Workflow console</a>
      ${
        workspace &&
        html`<nav aria-label="Sections"><ul>
          ${sections.map(
            ([id, label]) =>
              html`<li><a href=${hrefOf(['w', workspace.id, id])} aria-current=${section === id ? 'page' : undefined}>${label}</a></li>`,
          )}
        </ul></nav>`
      }
      <div class="top-end">
        ${
          list &&
          list.length > 1 &&
          html`<label class="picker">Workspace
            <select value=${workspace?.id ?? ''} onChange=${(event: Event) =>
              navigate(hrefOf(['w', (event.target as HTMLSelectElement).value, section]))}>
              ${!workspace && html`<option value="">Choose…</option>`}
              ${list.map((candidate) => html`<option value=${candidate.id}>${candidate.name}</option>`)}
            </select></label>`
        }
        ${list && list.length === 1 && html`<span class="workspace-name">${list[0].name}</span>`}
        <button type="button" onClick=${onSignOut}>Sign out</button>
      </div>
    </header>
    <main id="main">
      ${workspaces.loading && !list && html`<${Loading} what="your workspaces" />`}
      <${ErrorNote} error=${workspaces.error} />
      ${list && !workspace && root === 'w' && html`<p role="alert">This workspace is not one of yours.</p>`}
      ${list && root !== 'w' && html`<${WorkspacePicker} workspaces=${list} />`}
      ${workspace && html`<${Page} workspace=${workspace} section=${section} rest=${rest} params=${route.params} />`}
    </main>
  </div>`;
}

function WorkspacePicker({ workspaces }: { workspaces: Workspace[] }) {
  if (workspaces.length === 0) return html`<p>You are not a member of any workspace yet.</p>`;
  return html`<section><h1>Workspaces</h1><ul class="cards">
    ${workspaces.map(
      (workspace) =>
        html`<li><a href=${hrefOf(['w', workspace.id, 'workflows'])}>${workspace.name}</a> <span class="muted">(${workspace.permissions})</span></li>`,
    )}
  </ul></section>`;
}

function Page({
  workspace,
  section,
  rest,
  params,
}: {
  workspace: Workspace;
  section: string;
  rest: string[];
  params: URLSearchParams;
}) {
  switch (section) {
    case 'workflows':
      return rest[0]
        ? html`<${WorkflowPage} workspace=${workspace} workflowId=${rest[0]} />`
        : html`<${Workflows} workspace=${workspace} />`;
    case 'logs':
      return html`<${Logs} workspace=${workspace} params=${params} />`;
    case 'runs':
      return html`<${Run} workspace=${workspace} logId=${rest[0]} />`;
    case 'dashboard':
      return html`<${Dashboard} workspace=${workspace} params=${params} />`;
    case 'notifications':
      return html`<${Notifications} workspace=${workspace} />`;
    case 'settings':
      return html`<${Settings} workspace=${workspace} />`;
    default:
      return html`<p role="alert">No such page.</p>`;
  }
}
