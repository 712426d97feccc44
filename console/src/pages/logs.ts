/**
 * The execution log: a table filtered by the page's address, more rows as the user scrolls (the
 * API's cursor), "Live" new runs on top (the polling cursor), and the filter's rows as CSV.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { logsCsv } from '../csv';
import { download } from '../download';
import { formatCost, formatDuration, formatTime } from '../format';
import { html } from '../html';
import {
  apiQueryOf,
  type LogView,
  meetsStrictBounds,
  paramsOf,
  type StrictBounds,
  viewOf,
} from '../log-query';
import { allLogEntries, logPage } from '../logs-api';
import { hrefOf, navigate } from '../route';
import { type LogItem, triggers, type Workspace } from '../types';
import { ErrorNote, Status, useAction } from '../ui';
import { nameOf, useWorkflows } from '../workflows-cache';

const pageSize = 50;
const maxExportedRows = 10_000;

/** How often Live asks for new runs; `?pollMs=` on the page's address changes it (tests). */
function pollIntervalInMs(): number {
  const asked = Number(new URLSearchParams(location.search).get('pollMs'));
  return Number.isFinite(asked) && asked >= 100 ? asked : 2_000;
}

export function Logs({ workspace, params }: { workspace: Workspace; params: URLSearchParams }) {
  const workflows = useWorkflows(workspace.id);
  const view = viewOf(params);
  const viewKey = JSON.stringify(paramsOf(view));
  const live = params.get('live') === '1';
  const [rows, setRows] = useState<LogItem[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [searchText, setSearchText] = useState(view.search ?? '');
  const exporting = useAction();
  const sentinel = useRef<HTMLTableRowElement>(null);

  // The API query of this view, once the workflows (for names in the search) are known.
  const query = useMemo(() => {
    if (!workflows.value) return undefined;
    try {
      return apiQueryOf(
        view,
        Date.now(),
        (name) => workflows.value?.find((workflow) => workflow.name === name)?.id,
      );
    } catch (caught) {
      return { error: caught };
    }
  }, [viewKey, workflows.value]);

  const apply = (next: Partial<LogView>, extra: Record<string, string | undefined> = {}) =>
    navigate(
      hrefOf(['w', workspace.id, 'logs'], {
        ...paramsOf({ ...view, ...next }),
        live: live ? '1' : undefined,
        ...extra,
      }),
      {
        replace: true,
      },
    );

  useEffect(() => setSearchText(view.search ?? ''), [view.search]);

  // A new view: the first page again.
  useEffect(() => {
    setRows([]);
    setCursor(undefined);
    setError(undefined);
    if (!query) return;
    if ('error' in query) return setError(query.error);
    let current = true;
    setLoading(true);
    logPage(workspace.id, { ...query.query, limit: pageSize }).then(
      (page) => {
        if (!current) return;
        setRows(keep(page.data, query.strict));
        setCursor(page.nextCursor);
        setLoading(false);
      },
      (caught) => {
        if (!current) return;
        setError(caught);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [query, workspace.id]);

  const loadMore = async () => {
    if (!cursor || loading || !query || 'error' in query) return;
    setLoading(true);
    try {
      const page = await logPage(workspace.id, { ...query.query, limit: pageSize, cursor });
      setRows((previous) => [
        ...previous,
        ...keep(page.data, query.strict).filter((row) => !previous.some((old) => old.id === row.id)),
      ]);
      setCursor(page.nextCursor);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  };

  // More rows as the end of the table scrolls into view.
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !cursor) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) void loadMore();
    });
    observer.observe(element);
    return () => observer.disconnect();
  });

  // Live: read forward from now, then poll with the polling cursor; new rows go on top.
  useEffect(() => {
    if (!live || !query || 'error' in query || query.query.endDate) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const liveQuery = {
      ...query.query,
      order: 'asc',
      startDate: new Date(Date.now() - 15_000).toISOString(),
      limit: 1000,
    };
    let pollCursor: string | undefined;
    const poll = async () => {
      try {
        let page = await logPage(workspace.id, { ...liveQuery, cursor: pollCursor });
        const fresh = [...page.data];
        while (page.nextCursor && !stopped) {
          page = await logPage(workspace.id, { ...liveQuery, cursor: page.nextCursor });
          fresh.push(...page.data);
        }
        pollCursor = page.pollCursor ?? pollCursor;
        if (stopped) return;
        const kept = keep(fresh, query.strict).reverse();
        if (kept.length > 0)
          setRows((previous) => [
            ...kept.filter((row) => !previous.some((old) => old.id === row.id)),
            ...previous,
          ]);
        setError(undefined);
      } catch (caught) {
        if (!stopped) setError(caught);
      }
      if (!stopped) timer = setTimeout(poll, pollIntervalInMs());
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live, query, workspace.id]);

  const exportCsv = () =>
    exporting.run(async () => {
      if (!query || 'error' in query) return;
      const { entries } = await allLogEntries(workspace.id, query.query, maxExportedRows);
      const text = logsCsv(keep(entries, query.strict), (id) => nameOf(workflows.value, id));
      download(
        `logs-${workspace.name.replace(/\W+/g, '-')}-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.csv`,
        text,
        'text/csv',
      );
    });

  const onSelect = (name: keyof LogView) => (event: Event) =>
    apply({ [name]: (event.target as HTMLSelectElement).value || undefined });

  return html`<section class="logs">
    <h1>Logs</h1>
    <form class="filters" role="search" aria-label="Filter the logs" onSubmit=${(event: Event) => {
      event.preventDefault();
      apply({ search: searchText });
    }}>
      <label>Time range
        <select value=${view.range} onChange=${onSelect('range')}>
          <option value="1h">Last hour</option><option value="24h">Last 24 hours</option>
          <option value="7d">Last 7 days</option><option value="custom">Custom</option>
        </select></label>
      ${
        view.range === 'custom' &&
        html`<label>From <input type="datetime-local" value=${view.from ?? ''} onChange=${(event: Event) => apply({ from: (event.target as HTMLInputElement).value })} /></label>
          <label>To <input type="datetime-local" value=${view.to ?? ''} onChange=${(event: Event) => apply({ to: (event.target as HTMLInputElement).value })} /></label>`
      }
      <label>Status
        <select value=${view.level ?? ''} onChange=${onSelect('level')}>
          <option value="">All</option><option value="info">Success</option><option value="error">Error</option>
        </select></label>
      <label>Trigger
        <select value=${view.trigger ?? ''} onChange=${onSelect('trigger')}>
          <option value="">All</option>${triggers.map((trigger) => html`<option value=${trigger}>${trigger}</option>`)}
        </select></label>
      <label>Workflow
        <select value=${view.workflowId ?? ''} onChange=${onSelect('workflowId')}>
          <option value="">All</option>${workflows.value?.map((workflow) => html`<option value=${workflow.id}>${workflow.name}</option>`)}
        </select></label>
      <label class="search">Search
        <input type="search" value=${searchText} placeholder='level:error workflow:"Name" cost:>0.01 duration:>500'
          onInput=${(event: Event) => setSearchText((event.target as HTMLInputElement).value)} /></label>
      <button type="submit">Apply</button>
      <button type="button" aria-pressed=${live} disabled=${view.range === 'custom' && Boolean(view.to)}
        onClick=${() => apply({}, { live: live ? undefined : '1' })}>${live ? '● Live' : 'Live'}</button>
      <button type="button" disabled=${exporting.busy} onClick=${exportCsv}>${exporting.busy ? 'Exporting…' : 'Export CSV'}</button>
    </form>
    <${ErrorNote} error=${error ?? exporting.error ?? workflows.error} />
    ${live && html`<p class="muted" role="status">Live: new runs appear on top as they end.</p>`}
    <table class="data log-table">
      <caption class="visually-hidden">Runs of ${workspace.name}, newest first</caption>
      <thead><tr>
        <th scope="col">Workflow</th><th scope="col">Started</th><th scope="col">Status</th>
        <th scope="col">Trigger</th><th scope="col" class="number">Duration</th><th scope="col" class="number">Cost</th>
      </tr></thead>
      <tbody>
        ${rows.map(
          (
            row,
          ) => html`<tr key=${row.id} data-execution-id=${row.executionId} class=${row.level === 'error' ? 'failed' : ''} onClick=${(
            event: MouseEvent,
          ) => {
            if (!(event.target as HTMLElement).closest('a'))
              navigate(hrefOf(['w', workspace.id, 'runs', row.id]));
          }}>
            <td><a href=${hrefOf(['w', workspace.id, 'runs', row.id])}>${nameOf(workflows.value, row.workflowId)}</a></td>
            <td><time datetime=${row.startedAt}>${formatTime(row.startedAt)}</time></td>
            <td><${Status} status=${row.level} /></td>
            <td>${row.trigger}</td>
            <td class="number">${formatDuration(row.totalDurationMs)}</td>
            <td class="number">${formatCost(row.cost?.total)}</td>
          </tr>`,
        )}
        ${!loading && rows.length === 0 && !error && html`<tr><td colspan="6">No runs match these filters.</td></tr>`}
        <tr ref=${sentinel} class="sentinel"><td colspan="6">
          ${loading && html`<span role="status">Loading runs…</span>`}
          ${!loading && cursor && html`<button type="button" onClick=${loadMore}>Load more</button>`}
        </td></tr>
      </tbody>
    </table>
  </section>`;
}

function keep(entries: LogItem[], strict: StrictBounds): LogItem[] {
  return entries.filter((entry) => meetsStrictBounds(entry.cost?.total ?? 0, strict));
}
