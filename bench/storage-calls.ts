/**
 * CPU per storage call of a sync run: the calls a run and the notifications worker make, through
 * the service's own clients (adapters/aws/*-client.ts) against the embedded stack in this process,
 * one after the other as a lone run makes them. Prints the process's CPU time (user and system,
 * every thread: LevelDB works on libuv's pool) per call kind, per round, and the median of the rounds.
 *
 * `npx tsx bench/storage-calls.ts [calls per round] [rounds] [--replay | --path]` (defaults 2000 and 3, after
 * 1000 warm-up calls of each kind). Run it before and after a change, alternately, on a shared
 * machine. `--replay` answers every call after the warm-up with the emulator's last answer to that
 * operation, so the figures are the SDK clients' own CPU, without the emulators' work and its noise.
 * `--path` instead times the storage calls on a run's path (the token, the log entry; the completion
 * event is sent only in a workspace with a subscription) one after the other, as a lone run waits
 * for them: their latency (p50, p90) and the process's CPU per round, the emulator thread's included.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../adapters/aws/dynamodb-client';
import { sqsClient } from '../adapters/aws/sqs-client';
import {
  type InProcessResponse,
  inProcessDispatchOf,
  registerInProcessEndpoint,
} from '../local/transport/in-process-transport';
import { DynamoExecutionLogStore } from '../adapters/dynamodb/execution-log-store';
import { DynamoIdentityStore } from '../adapters/dynamodb/identity-store';
import { DynamoLimitsStore } from '../adapters/dynamodb/limits-store';
import { sendMessage } from '../adapters/sqs/message-sender';
import { queues } from '../catalog/resources';
import type { ExecutionLogEntry } from '../core/runs/log';
import { logIdFor } from '../core/runs/log';
import { applyEnv, type LocalEmulators, startLocalEmulators } from '../local/emulators';

const callKinds = [
  'UpdateItem (rate-limit token and charge)',
  'PutItem (log entry, attribute_not_exists)',
  'SendMessage (completion event)',
  'ReceiveMessage (notifications worker)',
  'DeleteMessageBatch (notifications worker)',
] as const;
export type CallKind = (typeof callKinds)[number];

/** The service's two clients the calls go through. */
export interface StorageClients {
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
}

export type StorageCalls = Record<CallKind, () => Promise<unknown>>;

export interface StorageCallBench {
  stack: LocalEmulators;
  /** The five calls of a run through these clients (the service's own unless others are given). */
  callsThrough(clients?: StorageClients): StorageCalls;
  stop(): Promise<void>;
}

/** Starts an embedded stack in a temporary dir, with the user the rate-limit update needs. */
export async function startStorageCallBench(): Promise<StorageCallBench> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-storage-calls-'));
  const stack = await startLocalEmulators({ dataDir });
  const stop = async () => {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    applyEnv(stack.env);
    const queueUrl = stack.env[queues.notifications.envVar] as string;
    await DynamoIdentityStore.fromEnv().createUser({
      id: 'usr_bench',
      email: 'bench@example.com',
      name: 'Bench',
      plan: 'free',
      createdAt: new Date().toISOString(),
    });
    // The log entry of a 3-block run (start → function → response) as Finalize writes it; the item
    // is made once (its gzip is the store's, not a storage call) and put under a new key each time.
    const startedAt = new Date().toISOString();
    const span = (id: string, type: string, output: unknown) => ({
      id,
      name: type,
      type,
      blockId: id,
      startTime: startedAt,
      endTime: startedAt,
      duration: 1,
      status: 'success' as const,
      input: { value: 42, text: 'hello' },
      output,
    });
    const entry = (executionId: string): ExecutionLogEntry => ({
      id: logIdFor(executionId),
      workspaceId: 'wsp_bench',
      workflowId: 'wfl_bench',
      executionId,
      level: 'info',
      trigger: 'api',
      startedAt,
      endedAt: startedAt,
      loggedAt: startedAt,
      totalDurationMs: 3,
      cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
      files: null,
      deploymentVersion: 1,
      models: [],
      executionData: {
        traceSpans: [
          span('start', 'start', { input: { value: 42 } }),
          span('fn', 'function', { result: 84, stdout: '' }),
          span('response', 'response', { data: { result: 84 }, status: 200 }),
        ],
        finalOutput: { result: 84 },
      },
    });
    const logs = DynamoExecutionLogStore.fromEnv() as unknown as {
      toItem(entry: ExecutionLogEntry): Promise<Record<string, unknown>>;
    };
    const logItem = await logs.toItem(entry('exe_template'));
    const event = JSON.stringify({
      kind: 'event',
      event: {
        id: 'evt_exe_template',
        type: 'workflow.execution.completed',
        timestamp: Date.now(),
        workspaceId: 'wsp_bench',
        workflowId: 'wfl_bench',
        executionId: 'exe_template',
        logId: 'log_exe_template',
        userId: 'usr_bench',
        level: 'info',
        trigger: 'api',
        startedAt,
        endedAt: startedAt,
        totalDurationMs: 3,
        cost: { total: 0, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
        files: null,
      },
    });

    // One sequence for every set of clients, so each log entry has a key of its own.
    let sequence = 0;
    const callsThrough = (
      { documents, sqs }: StorageClients = {
        documents: dynamoDocumentClient(),
        sqs: sqsClient(),
      },
    ): StorageCalls => {
      const limits = new DynamoLimitsStore({
        client: documents,
        tableName: stack.env.LIMITS_TABLE as string,
        entitiesTableName: stack.env.ENTITIES_TABLE as string,
      });
      let received: Message[] = [];
      return {
        'UpdateItem (rate-limit token and charge)': () =>
          limits.take(
            'user#usr_bench',
            'sync',
            { requestsPerMinute: 6_000_000, maxBurst: 1_000_000 },
            Date.now(),
            {
              chargeUsd: 0.0001,
              period: startedAt.slice(0, 7),
            },
          ),
        'PutItem (log entry, attribute_not_exists)': () => {
          const executionId = `exe_${++sequence}`;
          return documents.send(
            new PutCommand({
              TableName: stack.env.EXECUTIONS_TABLE,
              Item: {
                ...logItem,
                pk: `LOG#${logIdFor(executionId)}`,
                id: logIdFor(executionId),
                executionId,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          );
        },
        'SendMessage (completion event)': () => sendMessage(sqs, queueUrl, event),
        // The local queue poller's receive and delete (local/emulators/queue-poller.ts).
        'ReceiveMessage (notifications worker)': async () => {
          const answer = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: 10,
              WaitTimeSeconds: 1,
              MessageSystemAttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
          );
          received = answer.Messages ?? [];
          if (received.length !== 1)
            throw new Error(`Received ${received.length} messages, not the one sent`);
        },
        'DeleteMessageBatch (notifications worker)': () =>
          sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: received.map((message, index) => ({
                Id: String(index),
                ReceiptHandle: message.ReceiptHandle,
              })),
            }),
          ),
      };
    };
    return { stack, callsThrough, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Makes the five calls `count` times, one after the other; answers the mean CPU µs of each kind. */
export async function cpuPerCall(calls: StorageCalls, count: number): Promise<Record<CallKind, number>> {
  const micros = Object.fromEntries(callKinds.map((kind) => [kind, 0])) as Record<CallKind, number>;
  for (let i = 0; i < count; i++) {
    for (const kind of callKinds) {
      const before = cpuMicros();
      await calls[kind]();
      micros[kind] += cpuMicros() - before;
    }
  }
  return Object.fromEntries(callKinds.map((kind) => [kind, micros[kind] / count])) as Record<
    CallKind,
    number
  >;
}

/** Prints the median of the rounds for each kind, and every round's figure. */
export function printCpuPerCall(title: string, results: Array<Record<CallKind, number>>): void {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  const width = Math.max(...callKinds.map((kind) => kind.length));
  const line = (name: string, values: number[]) =>
    console.log(
      `  ${name.padEnd(width)}  ${median(values).toFixed(0).padStart(5)}   (${values.map((v) => v.toFixed(0)).join(', ')})`,
    );
  console.log(title);
  for (const kind of callKinds)
    line(
      kind,
      results.map((result) => result[kind]),
    );
  line(
    'all five',
    results.map((result) => callKinds.reduce((sum, kind) => sum + result[kind], 0)),
  );
}

/** From now on, each operation is answered as the emulator last answered it: the SDK's side alone. */
export function replayAnswers(bench: StorageCallBench): void {
  for (const endpoint of [bench.stack.endpoints.dynamodb, bench.stack.endpoints.sqs]) {
    const dispatch = inProcessDispatchOf(endpoint);
    if (!dispatch) throw new Error(`No in-process emulator at ${endpoint}`);
    const answers = new Map<string, InProcessResponse>();
    registerInProcessEndpoint(endpoint, async (request) => {
      const operation = request.headers['x-amz-target'] ?? '';
      const known = answers.get(operation);
      if (known) return known;
      const answer = await dispatch(request);
      answers.set(operation, answer);
      return answer;
    });
  }
}

// The token and the log entry: the completion event is on the path only in a workspace with a
// subscription (core/notifications/publishing.ts).
const pathKinds = callKinds.slice(0, 2);

/** The storage calls on a run's path in a row, `count` times: their latency and the CPU per round of them. */
export async function pathLatency(calls: StorageCalls, count: number) {
  const latenciesInMs: number[] = [];
  const before = cpuMicros();
  for (let i = 0; i < count; i++) {
    const at = performance.now();
    for (const kind of pathKinds) await calls[kind]();
    latenciesInMs.push(performance.now() - at);
  }
  const cpuInMs = (cpuMicros() - before) / 1000 / count;
  latenciesInMs.sort((a, b) => a - b);
  const at = (q: number) => latenciesInMs[Math.floor(q * (latenciesInMs.length - 1))] as number;
  return { p50InMs: at(0.5), p90InMs: at(0.9), cpuInMs };
}

async function main() {
  const [callsArg, roundsArg] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const callsPerRound = Number(callsArg ?? 2000);
  const rounds = Number(roundsArg ?? 3);
  const replay = process.argv.includes('--replay');
  const bench = await startStorageCallBench();
  try {
    const calls = bench.callsThrough();
    await cpuPerCall(calls, 1000);
    if (process.argv.includes('--path')) {
      for (let r = 0; r < rounds; r++) {
        const { p50InMs, p90InMs, cpuInMs } = await pathLatency(calls, callsPerRound);
        console.log(
          `${callsPerRound} rounds (${pathKinds.join(', ')}): p50 ${p50InMs.toFixed(3)} ms, ` +
            `p90 ${p90InMs.toFixed(3)} ms; ${cpuInMs.toFixed(3)} ms of process CPU per round`,
        );
      }
      return;
    }
    if (replay) replayAnswers(bench);
    const results: Array<Record<CallKind, number>> = [];
    for (let r = 0; r < rounds; r++) results.push(await cpuPerCall(calls, callsPerRound));
    printCpuPerCall(
      `CPU µs per call${replay ? ' (SDK only: answers replayed)' : ''}, ${callsPerRound} calls of each kind per round (median of ${rounds} rounds, every round):`,
      results,
    );
  } finally {
    await bench.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
