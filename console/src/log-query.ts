/**
 * The logs view's filters: from the page's address (time range, status, trigger, workflow, search
 * box) to the query of `GET /api/v1/logs`. The search box takes `level:error`, `workflow:"Name"`,
 * `trigger:webhook`, `cost:>0.01`, `duration:>500` (ms) and an execution id, combined with spaces.
 */

export const timeRanges = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type TimeRange = keyof typeof timeRanges | 'custom';

export interface LogView {
  range: TimeRange;
  /** Custom range bounds, as the date-time fields give them (local time) or ISO 8601. */
  from?: string;
  to?: string;
  level?: string;
  trigger?: string;
  workflowId?: string;
  search?: string;
}

/** A search term the box does not understand, or a name no workflow has: shown beside the box. */
export class SearchError extends Error {
  override readonly name = 'SearchError';
  readonly status = 400;
}

export function viewOf(params: URLSearchParams): LogView {
  const range = params.get('range');
  return {
    range: range === 'custom' || (range !== null && range in timeRanges) ? (range as TimeRange) : '24h',
    from: params.get('from') ?? undefined,
    to: params.get('to') ?? undefined,
    level: params.get('level') ?? undefined,
    trigger: params.get('trigger') ?? undefined,
    workflowId: params.get('workflow') ?? undefined,
    search: params.get('q') ?? undefined,
  };
}

export function paramsOf(view: LogView): Record<string, string | undefined> {
  return {
    range: view.range === '24h' ? undefined : view.range,
    from: view.range === 'custom' ? view.from : undefined,
    to: view.range === 'custom' ? view.to : undefined,
    level: view.level,
    trigger: view.trigger,
    workflow: view.workflowId,
    q: view.search?.trim() || undefined,
  };
}

export type ApiLogQuery = {
  startDate?: string;
  endDate?: string;
  level?: string;
  triggers?: string;
  workflowIds?: string;
  executionId?: string;
  minCost?: string;
  maxCost?: string;
  minDurationMs?: string;
  maxDurationMs?: string;
};

/** What the API's bounds (inclusive) cannot say: `cost:>0.01` leaves out a cost of exactly 0.01. */
export interface StrictBounds {
  costAbove?: number;
  costBelow?: number;
}

export interface SearchTerms {
  level?: string;
  trigger?: string;
  workflowName?: string;
  executionId?: string;
  cost?: { op: string; value: number };
  duration?: { op: string; value: number };
}

const termPattern = /(\w+):("[^"]*"|\S+)|"[^"]*"|\S+/g;
const comparison = /^(>=|<=|>|<|=)?(\d+(?:\.\d+)?)$/;
const levels = ['info', 'error'];
const triggerNames = ['api', 'webhook', 'schedule', 'manual', 'chat', 'form'];

export function parseSearch(text: string | undefined): SearchTerms {
  const terms: SearchTerms = {};
  for (const match of (text ?? '').matchAll(termPattern)) {
    const [whole, key, rawValue] = match;
    if (!key) {
      const id = whole.replace(/^"|"$/g, '').replace(/^log_/, '');
      if (!/^[\w-]{8,}$/.test(id))
        throw new SearchError(
          `"${whole}" is not a search term: use level:, workflow:"Name", trigger:, cost:>…, duration:>… (ms) or an execution id`,
        );
      terms.executionId = id;
      continue;
    }
    const value = rawValue.replace(/^"|"$/g, '');
    const name = key.toLowerCase();
    switch (name) {
      case 'level':
      case 'status':
        if (!levels.includes(value)) throw new SearchError(`level: takes info or error, not "${value}"`);
        terms.level = value;
        break;
      case 'trigger':
        if (!triggerNames.includes(value))
          throw new SearchError(`trigger: takes one of ${triggerNames.join(', ')}, not "${value}"`);
        terms.trigger = value;
        break;
      case 'workflow':
        terms.workflowName = value;
        break;
      case 'cost':
      case 'duration': {
        const found = comparison.exec(value);
        if (!found)
          throw new SearchError(
            `${name}: takes a comparison such as ${name}:>${name === 'cost' ? '0.01' : '500'}, not "${value}"`,
          );
        terms[name] = { op: found[1] ?? '=', value: Number(found[2]) };
        break;
      }
      default:
        throw new SearchError(
          `Unknown search term "${key}:": use level:, workflow:, trigger:, cost: or duration:`,
        );
    }
  }
  return terms;
}

function localOrIso(text: string): string {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new SearchError(`"${text}" is not a date and time`);
  return date.toISOString();
}

/**
 * The API query of a view at `nowInMs`; `workflowIdOfName` answers the id of a workflow named in the
 * search box (undefined when none has that name).
 */
export function apiQueryOf(
  view: LogView,
  nowInMs: number,
  workflowIdOfName: (name: string) => string | undefined,
): { query: ApiLogQuery; strict: StrictBounds } {
  const terms = parseSearch(view.search);
  const query: ApiLogQuery = {};
  const strict: StrictBounds = {};
  if (view.range === 'custom') {
    if (view.from) query.startDate = localOrIso(view.from);
    if (view.to) query.endDate = localOrIso(view.to);
  } else query.startDate = new Date(nowInMs - timeRanges[view.range]).toISOString();
  query.level = terms.level ?? view.level;
  query.triggers = terms.trigger ?? view.trigger;
  if (terms.workflowName !== undefined) {
    const id = workflowIdOfName(terms.workflowName);
    if (!id) throw new SearchError(`No workflow of this workspace is named "${terms.workflowName}"`);
    query.workflowIds = id;
  } else query.workflowIds = view.workflowId;
  query.executionId = terms.executionId;
  if (terms.cost) {
    const { op, value } = terms.cost;
    if (op.startsWith('>') || op === '=') query.minCost = String(value);
    if (op.startsWith('<') || op === '=') query.maxCost = String(value);
    if (op === '>') strict.costAbove = value;
    if (op === '<') strict.costBelow = value;
  }
  if (terms.duration) {
    const { op } = terms.duration;
    const value = Math.round(terms.duration.value);
    // Whole milliseconds: `> 500` is `>= 501`.
    if (op.startsWith('>') || op === '=') query.minDurationMs = String(op === '>' ? value + 1 : value);
    if (op.startsWith('<') || op === '=')
      query.maxDurationMs = String(op === '<' ? Math.max(0, value - 1) : value);
  }
  return { query, strict };
}

export function meetsStrictBounds(cost: number, strict: StrictBounds): boolean {
  return (
    (strict.costAbove === undefined || cost > strict.costAbove) &&
    (strict.costBelow === undefined || cost < strict.costBelow)
  );
}
