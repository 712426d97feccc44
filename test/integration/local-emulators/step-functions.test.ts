import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type {
  ExecutionAnswer,
  ExecutionRequest,
  ExecutionState,
  StepOutcome,
} from '../../../core/runs/types';
import { createLocalExecutionStarter } from '../../../local/emulators/step-functions';
import { validateExecutionDefinition } from '../../support/asl-validation';

/** Lets a test hold the journal's next append back, as a loaded disk would, and count the appends. */
const appends = vi.hoisted(() => ({ holdNextInMs: 0, count: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const held = async () => {
    appends.count++;
    const holdInMs = appends.holdNextInMs;
    appends.holdNextInMs = 0;
    if (holdInMs > 0) await new Promise((resolve) => setTimeout(resolve, holdInMs));
  };
  const appendFile: typeof actual.appendFile = async (path, data, options) => {
    await held();
    return actual.appendFile(path, data, options);
  };
  // The journal appends through a file it keeps open for appending.
  const open = (async (path: string, flags?: string, mode?: number) => {
    const handle = await actual.open(path, flags, mode);
    if (flags === 'a') {
      const append = handle.appendFile.bind(handle);
      handle.appendFile = async (data, options) => {
        await held();
        return append(data, options);
      };
    }
    return handle;
  }) as typeof actual.open;
  return { ...actual, appendFile, open, default: { ...actual, appendFile, open } };
});

/** The journal's lines, parsed. */
function journalLines(dir: string): { id: string; status: string; position?: { state?: string } }[] {
  return readFileSync(join(dir, 'executions.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

function request(executionId = 'exec-1'): ExecutionRequest {
  return {
    executionId,
    workflowId: 'wf-1',
    workspaceId: 'ws-1',
    userId: 'user-1',
    deploymentVersion: 3,
    trigger: 'api',
    input: { topic: 'local runs' },
    startedAt: '2025-01-01T00:00:00.000Z',
    mode: 'sync',
  };
}

function answerFor(state: ExecutionState): ExecutionAnswer {
  const success = !state.failure;
  return {
    httpStatus: success ? 200 : 500,
    headers: {},
    body: {
      success,
      output: state.step?.status === 'done' ? state.step.result : undefined,
      error: state.failure?.Error,
      metadata: {
        duration: 1,
        executionId: state.executionId,
        startedAt: state.startedAt,
        endedAt: state.startedAt,
        cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
      },
      traceSpans: [],
      logs: [],
      totalDuration: 1,
    },
  };
}

/** A step that answers the given outcomes in turn and records the state it was given each time. */
function scriptedStep(...outcomes: StepOutcome[]) {
  const seen: ExecutionState[] = [];
  const step = vi.fn(async (state: ExecutionState) => {
    seen.push(structuredClone(state));
    const outcome = outcomes[seen.length - 1];
    if (!outcome) throw new Error('step called too often');
    return outcome;
  });
  return { step, seen };
}

const done: StepOutcome = { status: 'done', result: { resultRef: 'results/exec-1.json' } };

describe('createLocalExecutionStarter', () => {
  it('runs a definition that passes Amazon States Language validation', async () => {
    // Act
    const validation = validateExecutionDefinition();

    // Assess
    await expect(validation).resolves.toBeUndefined();
  });

  it('returns the Finalize answer when the first step is done', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(answer.httpStatus).toBe(200);
    expect(answer.body.output).toEqual({ resultRef: 'results/exec-1.json' });
    expect(step).toHaveBeenCalledTimes(1);
    expect(step.mock.calls[0][0]).toEqual(request());
    expect(finalize).toHaveBeenCalledWith({ ...request(), step: done });
  });

  it('loops back to Step while the step answers running', async () => {
    // Prepare
    const { step, seen } = scriptedStep({ status: 'running' }, { status: 'running' }, done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(step).toHaveBeenCalledTimes(3);
    expect(seen.map((state) => state.step?.status)).toEqual([undefined, 'running', 'running']);
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(answer.body.success).toBe(true);
  });

  it('goes through Wait and back to Step when the step answers waiting', async () => {
    // Prepare
    const { step, seen } = scriptedStep({ status: 'waiting', waitSeconds: 3600 }, done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize, waitOverrideMs: 0 });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    expect(seen[1].step).toEqual({ status: 'waiting', waitSeconds: 3600 });
    expect(answer.body.success).toBe(true);
  });

  it('waits the seconds the step asks for when no override is given', async () => {
    // Prepare
    vi.useFakeTimers();
    const { step } = scriptedStep({ status: 'waiting', waitSeconds: 30 }, done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });

    // Act
    const run = starter.startSync(request());
    await vi.advanceTimersByTimeAsync(29_999);
    const stepsBeforeTheEnd = step.mock.calls.length;
    await vi.advanceTimersByTimeAsync(1);
    await run;
    vi.useRealTimers();

    // Assess
    expect(stepsBeforeTheEnd).toBe(1);
    expect(step).toHaveBeenCalledTimes(2);
  });

  it('sends a step that throws to Finalize with failure set as Lambda would', async () => {
    // Prepare
    class BudgetExceeded extends Error {
      override name = 'BudgetExceeded';
    }
    const step = vi.fn(async (): Promise<StepOutcome> => {
      throw new BudgetExceeded('no credits left');
    });
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const answer = await starter.startSync(request());

    // Assess
    const state = finalize.mock.calls[0][0];
    expect(step).toHaveBeenCalledTimes(1);
    expect(state.failure?.Error).toBe('BudgetExceeded');
    expect(JSON.parse(state.failure?.Cause ?? '{}')).toMatchObject({
      errorType: 'BudgetExceeded',
      errorMessage: 'no credits left',
      trace: expect.arrayContaining([expect.stringContaining('BudgetExceeded: no credits left')]),
    });
    expect(Object.keys(state.failure ?? {}).sort()).toEqual(['Cause', 'Error']);
    expect(answer.httpStatus).toBe(500);
  });

  it('rejects startSync when Finalize itself fails', async () => {
    // Prepare
    const starter = createLocalExecutionStarter({
      step: async () => done,
      finalize: async () => {
        throw new Error('log table unavailable');
      },
    });

    // Act
    const run = starter.startSync(request());

    // Assess
    await expect(run).rejects.toThrow(/log table unavailable/);
  });

  it('runs startAsync in the background until drain', async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({
      step: async () => {
        await gate;
        return done;
      },
      finalize,
    });

    // Act
    await starter.startAsync({ ...request('a'), mode: 'async' });
    await starter.startAsync({ ...request('b'), mode: 'async' });
    const inFlightBefore = starter.inFlight;
    release();
    await starter.drain();

    // Assess
    expect(inFlightBefore).toBe(2);
    expect(starter.inFlight).toBe(0);
    expect(finalize.mock.calls.map(([state]) => state.executionId).sort()).toEqual(['a', 'b']);
  });

  it('begins a background run only after startAsync has returned', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });

    // Act
    await starter.startAsync(request('later'));
    const calledBeforeDrain = step.mock.calls.length;
    await starter.drain();

    // Assess
    expect(calledBeforeDrain).toBe(0);
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('starts one background run per execution id', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (state) => answerFor(state) });

    // Act
    await starter.startAsync(request('same'));
    await starter.startAsync(request('same'));
    await starter.drain();

    // Assess
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('reports a failed background run instead of leaving an unhandled rejection', async () => {
    // Prepare
    const onAsyncError = vi.fn(() => {
      throw new Error('the reporter fails too');
    });
    const starter = createLocalExecutionStarter({
      step: async () => done,
      finalize: async () => {
        throw new Error('finalize broke');
      },
      onAsyncError,
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);

    // Act
    await starter.startAsync(request('broken'));
    await starter.drain();
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', unhandled);

    // Assess
    expect(onAsyncError).toHaveBeenCalledWith(expect.any(Error), request('broken'));
    expect(unhandled).not.toHaveBeenCalled();
  });
});

describe('createLocalExecutionStarter with a journal', () => {
  const journalDirs: string[] = [];
  const journalDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sfn-journal-'));
    journalDirs.push(dir);
    return dir;
  };
  const asyncRequest = (id: string): ExecutionRequest => ({ ...request(id), mode: 'async' });

  afterEach(() => {
    vi.useRealTimers();
    for (const dir of journalDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A new starter on the same journal, as the next process: resumes and runs what it finds to the end. */
  const resumeInNextProcess = async (dir: string) => {
    const { step } = scriptedStep();
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const next = createLocalExecutionStarter({ step, finalize, journalDir: dir });
    const resumed = await next.resume();
    await next.drain();
    return { resumed, step, finalize };
  };

  it('resumes a waiting execution in the next process, sleeping only what is left', async () => {
    // Prepare: timers and clock are fake; the journal's file I/O stays real
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const dir = journalDir();
    const first = scriptedStep({ status: 'waiting', waitSeconds: 600 });
    const before = createLocalExecutionStarter({
      step: first.step,
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    });
    await before.startAsync(asyncRequest('long'));
    await vi.waitFor(() => expect(first.step).toHaveBeenCalledTimes(1));
    await vi.advanceTimersByTimeAsync(60_000);
    await before.close();
    const second = scriptedStep(done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const after = createLocalExecutionStarter({ step: second.step, finalize, journalDir: dir });

    // Act
    const resumed = await after.resume();
    await vi.advanceTimersByTimeAsync(539_000);
    const stepsBeforeDeadline = second.step.mock.calls.length;
    await vi.advanceTimersByTimeAsync(1_000);
    await after.drain();
    vi.useRealTimers();

    // Assess
    expect(resumed).toBe(1);
    expect(stepsBeforeDeadline).toBe(0);
    expect(second.seen[0].step).toEqual({ status: 'waiting', waitSeconds: 600 });
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(await after.resume()).toBe(0);
  });

  it('writes a run down before each Task and at its end, not at the Choice between them', async () => {
    // Prepare
    const dir = journalDir();
    const starter = createLocalExecutionStarter({
      step: async () => done,
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    });

    // Act
    await starter.startAsync(asyncRequest('three-writes'));
    await starter.drain();

    // Assess: Step, Finalize, and the end; Route's position is not written on its own
    expect(journalLines(dir).map((line) => [line.status, line.position?.state])).toEqual([
      ['RUNNING', 'Step'],
      ['RUNNING', 'Finalize'],
      ['SUCCEEDED', undefined],
    ]);
  });

  it('resumes at the Task that was running when the process died, with the result of the Task before', async () => {
    // Prepare: the first process dies while its Finalize runs (it never answers)
    const dir = journalDir();
    const first = scriptedStep(done);
    const finalizeStarted = vi.fn();
    const before = createLocalExecutionStarter({
      step: first.step,
      finalize: () => {
        finalizeStarted();
        return new Promise<ExecutionAnswer>(() => undefined);
      },
      journalDir: dir,
    });
    await before.startAsync(asyncRequest('died-in-finalize'));
    await vi.waitFor(() => expect(finalizeStarted).toHaveBeenCalled());

    // Act
    const next = await resumeInNextProcess(dir);

    // Assess
    expect(next.resumed).toBe(1);
    expect(next.step).not.toHaveBeenCalled();
    expect(next.finalize).toHaveBeenCalledTimes(1);
    expect(next.finalize.mock.calls[0][0].step).toEqual(done);
  });

  it('writes down where a closing process left a run, between Tasks too', async () => {
    // Prepare: the process closes while the step runs; its result is kept for the next one
    const dir = journalDir();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const stepStarted = vi.fn();
    const before = createLocalExecutionStarter({
      step: async () => {
        stepStarted();
        await gate;
        return done;
      },
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    });
    await before.startAsync(asyncRequest('closed-after-step'));
    await vi.waitFor(() => expect(stepStarted).toHaveBeenCalled());
    const closed = before.close();
    release();
    await closed;

    // Act
    const next = await resumeInNextProcess(dir);

    // Assess
    expect(next.resumed).toBe(1);
    expect(next.step).not.toHaveBeenCalled();
    expect(next.finalize).toHaveBeenCalledTimes(1);
    expect(next.finalize.mock.calls[0][0].step).toEqual(done);
  });

  it('puts the writes that come while an append is on its way into one append', async () => {
    // Prepare: the runs stay in their first step, so only the starts write
    const dir = journalDir();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const starter = createLocalExecutionStarter({
      step: async () => {
        await gate;
        return done;
      },
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    });
    const ids = Array.from({ length: 10 }, (_, index) => `burst-${index}`);
    await starter.resume();
    appends.count = 0;
    appends.holdNextInMs = 50;

    // Act: the first start's append is held; the nine others come meanwhile
    await Promise.all(ids.map((id) => starter.startAsync(asyncRequest(id))));
    const appendsForTheStarts = appends.count;
    release();
    await starter.drain();

    // Assess
    expect(appendsForTheStarts).toBe(2);
    const started = journalLines(dir).filter((line) => line.position?.state === 'Step');
    expect(started.map((line) => line.id)).toEqual(ids);
  });

  it('keeps one line per execution when it opens, and frees the names of runs ended past the retention', async () => {
    // Prepare
    vi.useFakeTimers({ toFake: ['Date'] });
    const dir = journalDir();
    const { step } = scriptedStep(done, done, done);
    const options = { step, finalize: async (s: ExecutionState) => answerFor(s), journalDir: dir };
    const first = createLocalExecutionStarter(options);
    await first.startAsync(asyncRequest('old'));
    await first.drain();
    vi.setSystemTime(Date.now() + 6 * 24 * 3600 * 1000);
    await first.startAsync(asyncRequest('recent'));
    await first.drain();
    vi.setSystemTime(Date.now() + 2 * 24 * 3600 * 1000);

    // Act
    const next = createLocalExecutionStarter(options);
    const resumed = await next.resume();
    const linesWhenOpened = journalLines(dir);
    await next.startAsync(asyncRequest('old'));
    await next.startAsync(asyncRequest('recent'));
    await next.drain();

    // Assess: 'old' ended 8 days ago (its name is free again), 'recent' 2 days ago
    expect(resumed).toBe(0);
    expect(linesWhenOpened.map((line) => [line.id, line.status])).toEqual([['recent', 'SUCCEEDED']]);
    expect(step).toHaveBeenCalledTimes(3);
  });

  it('resumes from a torn last line and from the one-file-per-run records of earlier versions', async () => {
    // Prepare: a crash tore the journal's last line; an earlier version left a run in its own file
    const dir = journalDir();
    const waiting = (id: string) => ({
      request: asyncRequest(id),
      status: 'RUNNING',
      position: { state: 'Step', input: asyncRequest(id) },
    });
    const line = { id: 'in-journal', at: Date.now(), ...waiting('in-journal') };
    writeFileSync(join(dir, 'executions.jsonl'), `${JSON.stringify(line)}\n{"id":"torn","sta`);
    writeFileSync(
      join(dir, 'in-own-file.json'),
      JSON.stringify({ ...waiting('in-own-file'), updatedAtInMs: 1 }),
    );
    const { step } = scriptedStep(done, done);
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize, journalDir: dir });

    // Act
    const resumed = await starter.resume();
    await starter.drain();

    // Assess
    expect(resumed).toBe(2);
    expect(finalize.mock.calls.map(([state]) => state.executionId).sort()).toEqual([
      'in-journal',
      'in-own-file',
    ]);
    expect(readdirSync(dir)).toEqual(['executions.jsonl']);
  });

  it('does not start an execution again once it has ended', async () => {
    // Prepare
    const dir = journalDir();
    const { step } = scriptedStep(done, done);
    const starter = createLocalExecutionStarter({
      step,
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    });
    await starter.startAsync(asyncRequest('once'));
    await starter.drain();

    // Act
    await starter.startAsync(asyncRequest('once'));
    await createLocalExecutionStarter({
      step,
      finalize: async (s) => answerFor(s),
      journalDir: dir,
    }).startAsync(asyncRequest('once'));
    await starter.drain();

    // Assess
    expect(step).toHaveBeenCalledTimes(1);
  });

  it('stops a waiting execution: Finalize never runs and a restart does not resume it', async () => {
    // Prepare
    const dir = journalDir();
    const { step } = scriptedStep({ status: 'waiting', waitSeconds: 3600 });
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({ step, finalize, journalDir: dir });
    await starter.startAsync(asyncRequest('cancel-me'));
    await vi.waitFor(() => expect(step).toHaveBeenCalledTimes(1));

    // Act
    await starter.stopAsync('cancel-me', 'Cancelled by the user');
    await starter.drain();
    const resumed = await createLocalExecutionStarter({ step, finalize, journalDir: dir }).resume();

    // Assess
    expect(finalize).not.toHaveBeenCalled();
    expect(resumed).toBe(0);
  });

  it('keeps a stop that comes in while the next position is being written down', async () => {
    // Prepare
    const dir = journalDir();
    let stopping: Promise<void> | undefined;
    const finalize = vi.fn(async (state: ExecutionState) => answerFor(state));
    const starter = createLocalExecutionStarter({
      step: async () => {
        // The position after this step is written down slowly; the stop comes in meanwhile.
        appends.holdNextInMs = 50;
        setImmediate(() => {
          stopping = starter.stopAsync('stop-mid-write', 'Cancelled by the user');
        });
        return { status: 'waiting', waitSeconds: 3600 };
      },
      finalize,
      journalDir: dir,
    });

    // Act
    await starter.startAsync(asyncRequest('stop-mid-write'));
    await vi.waitFor(() => expect(stopping).toBeDefined());
    await stopping;
    await starter.drain();
    const resumed = await createLocalExecutionStarter({ step: vi.fn(), finalize, journalDir: dir }).resume();

    // Assess
    expect(finalize).not.toHaveBeenCalled();
    expect(resumed).toBe(0);
  });

  it('runs at most the configured number of async executions at once', async () => {
    // Prepare
    let running = 0;
    let most = 0;
    const step = async (): Promise<StepOutcome> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return done;
    };
    const starter = createLocalExecutionStarter({
      step,
      finalize: async (s) => answerFor(s),
      maxConcurrentAsync: 3,
    });

    // Act
    for (let i = 0; i < 10; i++) await starter.startAsync(asyncRequest(`gated-${i}`));
    await starter.drain();

    // Assess
    expect(most).toBe(3);
  });
});

describe("createLocalExecutionStarter: Step Functions' payload limit", () => {
  /** A request whose input alone makes its JSON about `sizeInBytes`. */
  const requestOf = (sizeInBytes: number, mode: 'sync' | 'async'): ExecutionRequest => ({
    ...request(`large-${mode}`),
    mode,
    input: { text: 'x'.repeat(sizeInBytes) },
  });

  it('refuses a 300 KB input of a sync execution, naming the limit, and runs nothing', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (s) => answerFor(s) });

    // Act
    const started = starter.startSync(requestOf(300 * 1024, 'sync'));

    // Assess
    await expect(started).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('262,144 bytes'),
    });
    expect(step).not.toHaveBeenCalled();
  });

  it('refuses a 300 KB input of an async execution before anything is written down', async () => {
    // Prepare
    const journalDir = mkdtempSync(join(tmpdir(), 'sfn-limit-'));
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (s) => answerFor(s), journalDir });

    // Act
    const started = starter.startAsync(requestOf(300 * 1024, 'async'));

    // Assess
    await expect(started).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('256 KB'),
    });
    await starter.close();
    expect(await starter.resume()).toBe(0);
    expect(step).not.toHaveBeenCalled();
    rmSync(journalDir, { recursive: true, force: true });
  });

  it('takes an input just under the limit', async () => {
    // Prepare
    const { step } = scriptedStep(done);
    const starter = createLocalExecutionStarter({ step, finalize: async (s) => answerFor(s) });

    // Act
    const answer = await starter.startSync(requestOf(250 * 1024, 'sync'));

    // Assess
    expect(answer.httpStatus).toBe(200);
  });

  it('fails the execution with States.DataLimitExceeded, past the Catch, when a Task answers over the limit', async () => {
    // Prepare
    const large: StepOutcome = { status: 'done', result: { resultRef: 'y'.repeat(300 * 1024) } };
    const { step } = scriptedStep(large);
    const finalize = vi.fn(async (s: ExecutionState) => answerFor(s));
    const starter = createLocalExecutionStarter({ step, finalize });

    // Act
    const started = starter.startSync(request('task-too-large'));

    // Assess
    await expect(started).rejects.toMatchObject({
      name: 'States.DataLimitExceeded',
      message: expect.stringContaining('262,144 bytes'),
    });
    expect(finalize).not.toHaveBeenCalled();
  });
});
