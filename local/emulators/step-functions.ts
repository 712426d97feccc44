/**
 * The execution state machine run in process: the very definition that CDK deploys
 * (catalog/execution-definition.ts), run by the interpreter in ./state-machine.ts with the Step and
 * Finalize Task states bound to local functions instead of Lambda.
 *
 * - Sync runs (the Express machine) run in the caller's request and are not written down, as an
 *   Express execution's state is not kept either.
 * - Async runs (the Standard machine) are written to `<journalDir>/executions.jsonl` before each
 *   Task they start, at each Wait's deadline, and when they end, so `resume()` after a restart goes
 *   on from there: a Task that was running when the process died runs again (as a Lambda retry
 *   would), a Wait sleeps only what is left. The Choice between them is not written down: it takes
 *   no time and reads only the Task's result, so the position after it is written in its place.
 *   An execution's name stays taken after it ends (as a Standard execution's does), so starting
 *   the same task again is a no-op.
 * - An execution input over Step Functions' 262,144 bytes is refused at the start (a
 *   ValidationException naming the limit), as StartExecution and StartSyncExecution refuse it; a
 *   state's payload over it fails the execution with States.DataLimitExceeded (./state-machine.ts).
 * - A handler error reaches the Catch as Lambda gives it: `Error` the error's name, `Cause` the JSON
 *   text `{"errorType","errorMessage","trace"}`. A Task over its TimeoutSeconds fails with
 *   States.Timeout.
 */
import { mkdirSync } from 'node:fs';
import { type FileHandle, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderExecutionDefinition } from '../../catalog/execution-definition';
import type { FinalizeOutput, StateMachineStarter } from '../../core/runs/by-reference';
import type { ExecutionRequest, ExecutionState, StepOutcome } from '../../core/runs/types';
import { WriteBatcher } from '../../adapters/aws/write-batcher';
import { isMetering, meter } from '../../adapters/metering';
import { refuseOverLimit, stepFunctionsPayloadLimitInBytes } from './aws-limits';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './constants';
import { checkDefinition, type Definition, type Position, runFrom, stateFailure } from './state-machine';

export const DEFAULT_FUNCTION_ARN_PREFIX = `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:`;

export interface LocalExecutionStarterOptions<Answer extends FinalizeOutput = FinalizeOutput> {
  /** The Step Lambda's logic. */
  step(state: ExecutionState): Promise<StepOutcome>;
  /** The Finalize Lambda's logic; its answer is what a sync run returns. */
  finalize(state: ExecutionState): Promise<Answer>;
  /** Prefix of the function ARNs substituted into the definition. */
  functionArnPrefix?: string;
  /** Replaces the duration of every Wait state by this many milliseconds (tests). */
  waitOverrideMs?: number;
  /** Called when a background run fails outside the definition's Catch (Finalize threw). Never throws out. */
  onAsyncError?(error: unknown, request: ExecutionRequest): void;
  /** Where async executions are written down; without it they live in memory only. */
  journalDir?: string;
  /** Async executions that run at once; the others wait their turn, already written down. Default 64. */
  maxConcurrentAsync?: number;
  /** Ended executions' records are removed after this long (their names are free again). Default 7 days. */
  endedRetentionInMs?: number;
}

export interface LocalExecutionStarter<Answer extends FinalizeOutput = FinalizeOutput>
  extends StateMachineStarter {
  /** Finalize's answer, as StartSyncExecution's output is. */
  startSync(request: ExecutionRequest): Promise<Answer>;
  /** Resolves once every background run started so far (and any they lead to) has ended. */
  drain(): Promise<void>;
  /** Background runs started and not ended. */
  readonly inFlight: number;
  /** Goes on with the async executions a previous process left running; resolves to how many. */
  resume(): Promise<number>;
  /**
   * Stops starting states: running Tasks finish and their executions stay written down as they
   * are, so the next process resumes them. Resolves when nothing runs any more.
   */
  close(): Promise<void>;
}

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';

interface JournalRecord {
  request: ExecutionRequest;
  status: Status;
  position: Position;
  updatedAtInMs: number;
}

interface Execution {
  request: ExecutionRequest;
  stopped: boolean;
  wake: Set<() => void>;
  done: Promise<void>;
}

/**
 * Counts an execution's state transitions and time for the cost model (adapters/metering.ts), when
 * it listens: one transition per state entered, as Step Functions bills a Standard execution.
 */
function startMetering(machineType: 'EXPRESS' | 'STANDARD') {
  if (!isMetering()) return undefined;
  const startedInMs = performance.now();
  let transitions = 1;
  return {
    onPosition: (position: Position) => {
      if ('state' in position) transitions += 1;
    },
    end: () =>
      meter({ kind: 'execution', machineType, transitions, durationInMs: performance.now() - startedInMs }),
  };
}

export function createLocalExecutionStarter<Answer extends FinalizeOutput = FinalizeOutput>(
  options: LocalExecutionStarterOptions<Answer>,
): LocalExecutionStarter<Answer> {
  const functionArnPrefix = options.functionArnPrefix ?? DEFAULT_FUNCTION_ARN_PREFIX;
  const stepArn = `${functionArnPrefix}executionStep`;
  const finalizeArn = `${functionArnPrefix}executionFinalize`;
  const definition = checkedDefinition(stepArn, finalizeArn);
  const handlers: { [arn: string]: (input: unknown) => Promise<unknown> } = {
    [stepArn]: asLambda(options.step),
    [finalizeArn]: asLambda(options.finalize),
  };
  const journal = options.journalDir
    ? openJournal(options.journalDir, options.endedRetentionInMs ?? 7 * 24 * 3600 * 1000)
    : undefined;
  const maxConcurrent = options.maxConcurrentAsync ?? 64;
  const onAsyncError =
    options.onAsyncError ??
    ((error: unknown, request: ExecutionRequest) =>
      console.error(`Local execution ${request.executionId} failed`, error));

  const executions = new Map<string, Execution>();
  const waitingForTurn: (() => void)[] = [];
  let runningAsync = 0;
  let closing = false;

  const hooksFor = (execution: Execution | undefined) => ({
    invoke: (resource: string, input: unknown) => {
      const handler = handlers[resource];
      if (!handler) throw new Error(`No local handler for ${resource}`);
      return handler(input);
    },
    now: () => Date.now(),
    sleepUntil: (timeInMs: number) => sleepUntil(timeInMs, execution),
    stopped: () => closing || Boolean(execution?.stopped),
  });

  const sleepUntil = (timeInMs: number, execution: Execution | undefined) =>
    new Promise<void>((resolve) => {
      const delayInMs = options.waitOverrideMs ?? Math.max(0, timeInMs - Date.now());
      const wake = () => {
        clearTimeout(timer);
        execution?.wake.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, delayInMs);
      execution?.wake.add(wake);
    });

  const turn = async () => {
    if (runningAsync < maxConcurrent) {
      runningAsync++;
      return;
    }
    await new Promise<void>((resolve) => waitingForTurn.push(resolve));
  };
  const endTurn = () => {
    const next = waitingForTurn.shift();
    if (next) next();
    else runningAsync--;
  };

  const runAsync = (request: ExecutionRequest, from: Position) => {
    const execution: Execution = { request, stopped: false, wake: new Set(), done: Promise.resolve() };
    executions.set(request.executionId, execution);
    execution.done = (async () => {
      // The run begins after the caller's turn, as a Standard execution starts after StartExecution answers.
      await new Promise((resolve) => setImmediate(resolve));
      await turn();
      try {
        if (closing || execution.stopped) return;
        const metering = startMetering('STANDARD');
        let written = from;
        const end = await runFrom(definition, from, {
          ...hooksFor(execution),
          onPosition: (position) => {
            metering?.onPosition(position);
            // Once stopped, the ABORTED record is final: a later position must not overwrite it.
            if (execution.stopped || !mustBeWritten(definition, position)) return;
            written = position;
            return journal?.write({ request, status: 'RUNNING', position });
          },
        });
        if (!('state' in end)) metering?.end();
        if (execution.stopped) return;
        if ('state' in end) {
          // Closing: left written down for the next process, from where it is now.
          if (end !== written) await journal?.write({ request, status: 'RUNNING', position: end });
          return;
        }
        await journal?.write({ request, status: 'failed' in end ? 'FAILED' : 'SUCCEEDED', position: end });
        if ('failed' in end) reportSafely(onAsyncError, asError(end.failed), request);
      } catch (error) {
        reportSafely(onAsyncError, error, request);
      } finally {
        endTurn();
        executions.delete(request.executionId);
      }
    })();
  };

  return {
    async startSync(request) {
      refuseLargeInput(request);
      const metering = startMetering('EXPRESS');
      const end = await runFrom(
        definition,
        { state: definition.StartAt, input: request },
        { ...hooksFor(undefined), onPosition: metering?.onPosition },
      );
      metering?.end();
      if ('failed' in end) throw asError(end.failed);
      if (!('end' in end)) throw new Error(`Sync execution ${request.executionId} was stopped`);
      return end.output as Answer;
    },

    async startAsync(request) {
      if (closing) throw new Error('The local state machine is closing');
      refuseLargeInput(request);
      if (executions.has(request.executionId)) return;
      const from: Position = { state: definition.StartAt, input: request };
      // Written down before StartExecution answers: a started execution survives a restart.
      if (journal && !(await journal.create({ request, status: 'RUNNING', position: from }))) return;
      runAsync(request, from);
    },

    async stopAsync(executionId, reason) {
      const execution = executions.get(executionId);
      if (execution) {
        execution.stopped = true;
        for (const wake of [...execution.wake]) wake();
      }
      await journal?.update(executionId, (record) =>
        record.status === 'RUNNING'
          ? { ...record, status: 'ABORTED', position: { failed: { Error: 'States.Aborted', Cause: reason } } }
          : undefined,
      );
    },

    async drain() {
      while (executions.size > 0) await Promise.all([...executions.values()].map((e) => e.done));
    },

    get inFlight() {
      return executions.size;
    },

    async resume() {
      if (!journal) return 0;
      let resumed = 0;
      for (const record of await journal.running()) {
        if (executions.has(record.request.executionId)) continue;
        runAsync(record.request, record.position);
        resumed++;
      }
      return resumed;
    },

    async close() {
      closing = true;
      for (const execution of executions.values()) for (const wake of [...execution.wake]) wake();
      for (const next of waitingForTurn.splice(0)) next();
      await Promise.all([...executions.values()].map((e) => e.done));
      await journal?.close();
    },
  };
}

/** As StartExecution and StartSyncExecution refuse an input over the payload limit. */
function refuseLargeInput(request: ExecutionRequest): void {
  refuseOverLimit(
    `Execution input of ${request.executionId}`,
    request,
    stepFunctionsPayloadLimitInBytes,
    "Step Functions' limit on execution input and state payloads (UTF-8 JSON)",
  );
}

/**
 * Whether a position reached is written down: the start of a Task (it runs again after a restart)
 * and a Wait with its deadline (a restart sleeps only the rest). Choice states, and a Wait before
 * its deadline is set, are passed at once and without side effects, so the next position stands for
 * them; an end is written with the execution's final status.
 */
function mustBeWritten(definition: Definition, position: Position): boolean {
  if (!('state' in position)) return false;
  const { Type } = definition.States[position.state];
  return Type === 'Task' || (Type === 'Wait' && position.waitUntilInMs !== undefined);
}

/** The rendered definition, checked once per pair of ARNs: the interpreter refuses what it cannot run. */
const definitions = new Map<string, Definition>();
function checkedDefinition(stepArn: string, finalizeArn: string): Definition {
  const key = `${stepArn} ${finalizeArn}`;
  let definition = definitions.get(key);
  if (!definition) {
    definition = renderExecutionDefinition({
      StepFunctionArn: stepArn,
      FinalizeFunctionArn: finalizeArn,
    }) as unknown as Definition;
    checkDefinition(definition);
    definitions.set(key, definition);
  }
  return definition;
}

/** Binds a handler as Lambda would run it: errors surface as Lambda function errors do. */
function asLambda<T>(handler: (state: ExecutionState) => Promise<T>) {
  return async (input: unknown): Promise<T> => {
    try {
      return await handler(input as ExecutionState);
    } catch (error) {
      throw lambdaFunctionError(error);
    }
  };
}

/** An error whose name is the Lambda `errorType` and whose Cause is the JSON text Step Functions shows. */
export function lambdaFunctionError(error: unknown): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const cause = JSON.stringify({
    errorType: original.name,
    errorMessage: original.message,
    trace: (original.stack ?? '').split('\n'),
  });
  const wrapped = stateFailure(original.name, cause);
  wrapped.cause = original;
  return wrapped;
}

function asError(failed: { Error: string; Cause: string }): Error {
  const error = new Error(`${failed.Error}: ${failed.Cause}`);
  error.name = failed.Error;
  return error;
}

function reportSafely(
  report: (error: unknown, request: ExecutionRequest) => void,
  error: unknown,
  request: ExecutionRequest,
): void {
  try {
    report(error, request);
  } catch {
    // A failing reporter must not turn into an unhandled rejection.
  }
}

/** What the journal keeps of an ended execution: that its name is taken, until when, and why it failed. */
interface EndedRecord {
  status: Exclude<Status, 'RUNNING'>;
  updatedAtInMs: number;
  position?: Position;
}

type Kept = JournalRecord | EndedRecord;

/** One line of the journal file: the execution's latest record; a running one in full. */
interface JournalLine {
  id: string;
  status: Status;
  at: number;
  request?: ExecutionRequest;
  position?: Position;
}

const JOURNAL_FILE = 'executions.jsonl';

/**
 * The async executions, as an append-only file of JSON lines (`executions.jsonl`): each write adds
 * the execution's latest record, and the last line of an execution is what it is. Writes asked for
 * while one is on its way to the file go together in the next append (a group commit,
 * adapters/aws/write-batcher.ts), so a busy machine makes one
 * append for many executions. The records are kept in memory too: a change (a stop) is made to the
 * latest record, whether or not it has reached the file, and is appended after it, so a stop that
 * comes in while a position is being written is never overwritten. An ended execution is kept as
 * its status and time only (its name stays taken). The file is read when the journal opens (a torn
 * last line from a crash is ignored; the one-file-per-execution records of earlier versions are
 * taken in) and rewritten compacted, by rename, then and whenever it grows well past what it holds.
 */
function openJournal(dir: string, endedRetentionInMs: number) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, JOURNAL_FILE);
  const kept = new Map<string, Kept>();
  let linesInFile = 0;

  const lineOf = (id: string, record: Kept): string => {
    const line: JournalLine = { id, status: record.status, at: record.updatedAtInMs };
    if ('request' in record) line.request = record.request;
    if (record.position) line.position = record.position;
    return JSON.stringify(line);
  };
  const keptOf = (record: JournalRecord): Kept => {
    if (record.status === 'RUNNING') return record;
    const { status, updatedAtInMs, position } = record;
    // An ended run's output is the caller's (in its log entry); its failure is kept, for whoever looks.
    return 'failed' in position ? { status, updatedAtInMs, position } : { status, updatedAtInMs };
  };
  const keep = (record: Omit<JournalRecord, 'updatedAtInMs'>): Kept =>
    keptOf({ ...record, updatedAtInMs: Date.now() });
  const compactedText = () => [...kept].map(([id, record]) => `${lineOf(id, record)}\n`).join('');
  const dropExpired = () => {
    for (const [id, record] of kept) {
      if (record.status !== 'RUNNING' && Date.now() - record.updatedAtInMs > endedRetentionInMs)
        kept.delete(id);
    }
  };
  // The file stays open for appends between rewrites: an open and a close per append cost more
  // than the append itself.
  let handle: FileHandle | undefined;
  const closeHandle = async () => {
    const open = handle;
    handle = undefined;
    await open?.close();
  };
  const rewrite = async () => {
    dropExpired();
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, compactedText());
    await closeHandle();
    await rename(temporary, file);
    linesInFile = kept.size;
  };

  // One append at a time; the lines of writes asked for meanwhile go together in the next.
  const appendLines = async (lines: readonly string[]): Promise<void> => {
    // Rewritten instead when the file holds four times the lines it needs: the memory has them all.
    if (linesInFile + lines.length > Math.max(1_000, 4 * kept.size)) await rewrite();
    else {
      handle ??= await open(file, 'a');
      await handle.appendFile(`${lines.join('\n')}\n`);
      linesInFile += lines.length;
    }
  };
  const appender = new WriteBatcher<string>({
    maxItemsPerBatch: Number.MAX_SAFE_INTEGER,
    writeOne: (line) => appendLines([line]),
    writeBatch: async (lines) => {
      await appendLines(lines);
      return lines.map(() => undefined);
    },
  });
  const writing = new Set<Promise<void>>();
  const append = (id: string, record: Kept): Promise<void> => {
    kept.set(id, record);
    const written = appender.write(lineOf(id, record));
    writing.add(written);
    const done = () => writing.delete(written);
    written.then(done, done);
    return written;
  };

  const load = async () => {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      let parsed: JournalLine;
      try {
        parsed = JSON.parse(line) as JournalLine;
      } catch {
        continue; // a torn last line: its write was never answered
      }
      kept.set(
        parsed.id,
        parsed.status === 'RUNNING'
          ? {
              request: parsed.request as ExecutionRequest,
              status: 'RUNNING',
              position: parsed.position as Position,
              updatedAtInMs: parsed.at,
            }
          : {
              status: parsed.status,
              updatedAtInMs: parsed.at,
              ...(parsed.position ? { position: parsed.position } : {}),
            },
      );
    }
    const earlier: string[] = [];
    for (const name of await readdir(dir)) {
      if (name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
      else if (name.endsWith('.json')) earlier.push(name);
    }
    for (const name of earlier) {
      const record = await readFile(join(dir, name), 'utf8').then(
        (json) => JSON.parse(json) as JournalRecord,
        () => undefined,
      );
      if (record && !kept.has(record.request.executionId))
        kept.set(record.request.executionId, keptOf(record));
    }
    await rewrite();
    for (const name of earlier) await rm(join(dir, name), { force: true });
  };
  const ready = load();
  // Whoever awaits it hears of a failed load; nobody waiting is no unhandled rejection.
  ready.catch(() => undefined);

  return {
    async write(record: Omit<JournalRecord, 'updatedAtInMs'>): Promise<void> {
      await ready;
      return append(record.request.executionId, keep(record));
    },
    /** Writes a new execution's first record; false (nothing written) when its name is taken. */
    async create(record: Omit<JournalRecord, 'updatedAtInMs'>): Promise<boolean> {
      await ready;
      if (kept.has(record.request.executionId)) return false;
      await append(record.request.executionId, keep(record));
      return true;
    },
    /** Writes what `change` makes of the execution's latest record (written or on its way), if anything. */
    async update(
      executionId: string,
      change: (record: Kept) => Omit<JournalRecord, 'updatedAtInMs'> | undefined,
    ): Promise<void> {
      await ready;
      const record = kept.get(executionId);
      const changed = record && change(record);
      if (changed) await append(executionId, keep(changed));
    },
    /** The executions still running. */
    async running(): Promise<JournalRecord[]> {
      await ready;
      return [...kept.values()].filter((record): record is JournalRecord => record.status === 'RUNNING');
    },
    /** Closes the file once the writes asked for are in it; a later write opens it again. */
    async close(): Promise<void> {
      await ready.catch(() => undefined);
      await Promise.allSettled([...writing]);
      await closeHandle();
    },
  };
}
