/**
 * One run: status, trigger, start, duration and cost, the error on top, input and output as
 * collapsible JSON, the trace as a waterfall with the failing span selected, the cost by model, the
 * graph the run executed with the blocks that ran marked, and its files.
 */
import { useCallback, useMemo, useState } from 'preact/hooks';
import { get, getData, pathOf } from '../api';
import { formatCost, formatDuration, formatTime } from '../format';
import { GraphView } from '../graph';
import { html } from '../html';
import { hrefOf } from '../route';
import type { ExecutionDetail, LogDetail, Span, Workspace } from '../types';
import { ErrorNote, JsonView, Loading, Status, useAsync } from '../ui';
import { flatten, Waterfall } from '../waterfall';

export function Run({ workspace, logId }: { workspace: Workspace; logId: string }) {
  const detail = useAsync(() => getData<LogDetail>(pathOf`/api/v1/logs/${logId}`), [logId]);
  const executionId = detail.value?.executionId;
  const execution = useAsync(
    () =>
      executionId
        ? get<ExecutionDetail>(pathOf`/api/v1/logs/executions/${executionId}`)
        : Promise.resolve(undefined),
    [executionId],
  );
  const [span, setSpan] = useState<Span | undefined>();
  const onSelect = useCallback((next: Span | undefined) => setSpan(next), []);
  const run = detail.value;
  const spans = run?.executionData?.traceSpans ?? [];
  const ran = useMemo(() => {
    const ids = new Set<string>();
    for (const { span: each } of flatten(spans))
      if (each.blockId && each.status !== 'skipped') ids.add(each.blockId);
    return ids;
  }, [spans]);
  if (!run)
    return html`<${ErrorNote} error=${detail.error} />${detail.loading && html`<${Loading} what="the run" />`}`;

  const start = flatten(spans).find(({ span: each }) => each.type === 'start')?.span;
  const models = Object.entries(run.cost?.models ?? {});
  return html`<section class="run">
    <p class="crumbs"><a href=${hrefOf(['w', workspace.id, 'logs'])}>Logs</a> ›</p>
    <h1>${run.workflow?.name ?? run.workflowId} <small class="muted">run ${run.executionId}</small></h1>
    ${run.executionData?.error && html`<div class="run-error" role="alert"><strong>Error: </strong>${run.executionData.error}</div>`}
    <dl class="facts inline">
      <dt>Status</dt><dd><${Status} status=${run.level} /></dd>
      <dt>Trigger</dt><dd>${run.trigger}</dd>
      <dt>Started</dt><dd><time datetime=${run.startedAt}>${formatTime(run.startedAt)}</time></dd>
      <dt>Duration</dt><dd>${formatDuration(run.totalDurationMs)}</dd>
      <dt>Cost</dt><dd>${formatCost(run.cost?.total)}</dd>
    </dl>
    <${JsonView} label="Input" value=${start?.input ?? spans[0]?.input} />
    <${JsonView} label="Output" value=${run.executionData?.finalOutput ?? undefined} />
    <h2>Trace</h2>
    <div class="trace">
      ${spans.length > 0 ? html`<${Waterfall} spans=${spans} onSelect=${onSelect} />` : html`<p>This run has no trace.</p>`}
      ${span && html`<${SpanDetails} span=${span} />`}
    </div>
    ${
      models.length > 0 &&
      html`<h2>Cost by model</h2>
        <table class="data">
          <thead><tr><th scope="col">Model</th><th scope="col" class="number">Tokens in</th><th scope="col" class="number">Tokens out</th><th scope="col" class="number">Cost</th></tr></thead>
          <tbody>${models.map(
            ([model, cost]) =>
              html`<tr><th scope="row">${model}</th><td class="number">${cost.tokens?.prompt ?? '–'}</td><td class="number">${cost.tokens?.completion ?? '–'}</td><td class="number">${formatCost(cost.total)}</td></tr>`,
          )}</tbody>
        </table>`
    }
    ${
      run.files?.length
        ? html`<h2>Files</h2><ul>${run.files.map(
            (file) =>
              html`<li>${file.url ? html`<a href=${file.url} download=${file.name}>Download ${file.name}</a>` : file.name}${file.size !== undefined ? ` (${file.size.toLocaleString('en-US')} bytes)` : ''}</li>`,
          )}</ul>`
        : null
    }
    <h2>What ran</h2>
    <${ErrorNote} error=${execution.error} />
    ${execution.value?.workflowState && html`<${GraphView} graph=${execution.value.workflowState} ran=${ran} label="The graph this run executed" />`}
  </section>`;
}

function SpanDetails({ span }: { span: Span }) {
  const cost = typeof span.cost === 'number' ? span.cost : span.cost?.total;
  return html`<aside class="span-details" aria-label=${`Span ${span.name}`}>
    <h3>${span.name}</h3>
    <dl class="facts">
      <dt>Type</dt><dd>${span.type}</dd>
      <dt>Status</dt><dd><${Status} status=${span.status} /></dd>
      <dt>Duration</dt><dd>${formatDuration(span.duration)}</dd>
      ${span.model && html`<dt>Model</dt><dd>${span.model}</dd>`}
      ${span.tokens && html`<dt>Tokens</dt><dd>${span.tokens.prompt ?? 0} in, ${span.tokens.completion ?? 0} out</dd>`}
      ${cost !== undefined && html`<dt>Cost</dt><dd>${formatCost(cost)}</dd>`}
    </dl>
    ${span.error && html`<p class="error-note">${span.error}</p>`}
    <${JsonView} label="Input" value=${span.input} open=${true} />
    <${JsonView} label="Output" value=${span.output} open=${true} />
  </aside>`;
}
