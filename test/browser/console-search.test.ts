/** The logs view's search box and CSV, as the console's page runs them (pure functions, in Node). */
import { describe, expect, it } from 'vitest';
import { logsCsv } from '../../console/src/csv';
import { apiQueryOf, parseSearch, SearchError, viewOf } from '../../console/src/log-query';
import type { LogItem } from '../../console/src/types';

const nowInMs = Date.parse('2026-11-28T12:00:00.000Z');
const idOfName = (name: string) => (name === 'Nightly import' ? 'wf_nightly' : undefined);
const queryOf = (address: string) => apiQueryOf(viewOf(new URLSearchParams(address)), nowInMs, idOfName);

describe('apiQueryOf', () => {
  it('turns every search term into the API query of the logs route', () => {
    // Act
    const { query, strict } = queryOf(
      'q=level:error workflow:"Nightly import" trigger:webhook cost:>0.01 duration:>500',
    );

    // Assess
    expect(query).toEqual({
      startDate: '2026-11-27T12:00:00.000Z',
      level: 'error',
      triggers: 'webhook',
      workflowIds: 'wf_nightly',
      minCost: '0.01',
      minDurationMs: '501',
      executionId: undefined,
    });
    expect(strict).toEqual({ costAbove: 0.01 });
  });

  it('takes an execution id or log id, bounds below and exact, and the menus beside the box', () => {
    // Act
    const byId = queryOf('range=1h&q=log_1f0c2a3b-aaaa-bbbb');
    const below = queryOf('range=7d&level=info&trigger=api&q=cost:<0.5 duration:<=100');
    const exact = queryOf('q=duration:250');

    // Assess
    expect(byId.query).toMatchObject({
      startDate: '2026-11-28T11:00:00.000Z',
      executionId: '1f0c2a3b-aaaa-bbbb',
    });
    expect(below.query).toMatchObject({
      startDate: '2026-11-21T12:00:00.000Z',
      level: 'info',
      triggers: 'api',
      maxCost: '0.5',
      maxDurationMs: '100',
    });
    expect(below.strict).toEqual({ costBelow: 0.5 });
    expect(exact.query).toMatchObject({ minDurationMs: '250', maxDurationMs: '250' });
  });

  it('refuses what it does not know, naming it', () => {
    // Act
    const refusals = [
      'q=colour:red',
      'q=level:warn',
      'q=trigger:email',
      'q=cost:lots',
      'q=workflow:"Nobody"',
      'q=hi',
    ].map((address) => {
      try {
        queryOf(address);
        return 'accepted';
      } catch (error) {
        return error instanceof SearchError ? error.message : 'another error';
      }
    });

    // Assess
    expect(refusals).toEqual([
      'Unknown search term "colour:": use level:, workflow:, trigger:, cost: or duration:',
      'level: takes info or error, not "warn"',
      'trigger: takes one of api, webhook, schedule, manual, chat, form, not "email"',
      'cost: takes a comparison such as cost:>0.01, not "lots"',
      'No workflow of this workspace is named "Nobody"',
      '"hi" is not a search term: use level:, workflow:"Name", trigger:, cost:>…, duration:>… (ms) or an execution id',
    ]);
    expect(parseSearch('')).toEqual({});
  });
});

describe('logsCsv', () => {
  it('writes one quoted-where-needed row per entry, with formulas defused', () => {
    // Prepare
    const entry = (fields: Partial<LogItem>): LogItem => ({
      id: 'log_1',
      workflowId: 'wf_1',
      executionId: 'exec-1',
      level: 'info',
      trigger: 'api',
      startedAt: '2026-11-28T10:00:00.000Z',
      endedAt: '2026-11-28T10:00:00.412Z',
      totalDurationMs: 412,
      cost: { total: 0.001 },
      files: null,
      ...fields,
    });
    const names: Record<string, string> = { wf_1: 'Import, "daily"', wf_2: '=HYPERLINK("x")' };

    // Act
    const text = logsCsv(
      [entry({}), entry({ workflowId: 'wf_2', level: 'error', executionId: 'exec-2' })],
      (id) => names[id],
    );

    // Assess
    expect(text.split('\r\n')).toEqual([
      'Workflow,Started,Status,Trigger,Duration (ms),Cost (USD),Execution ID',
      '"Import, ""daily""",2026-11-28T10:00:00.000Z,success,api,412,0.001,exec-1',
      `"'=HYPERLINK(""x"")",2026-11-28T10:00:00.000Z,error,api,412,0.001,exec-2`,
      '',
    ]);
  });
});
