import { describe, expect, it } from 'vitest';
import { completionEventOf } from '../../support/completion-event';
import { subscriptionOf } from '../../support/subscription';
import type { SecretCipher } from '../../../core/environment/types';
import type { HttpClient, HttpRequest, HttpResponse } from '../../../core/net/http';
import { OutboundRequestFailedError } from '../../../core/net/errors';
import { attemptDelivery } from '../../../core/notifications/attempts';
import { deliveryIdOf } from '../../../core/notifications/deliveries';
import { checkInactivity, dispatchEvent } from '../../../core/notifications/dispatch';
import type {
  AlertStateRecord,
  CompletionEvent,
  DeliveryMessage,
  DeliveryRecord,
  NotificationRecord,
  NotificationStore,
} from '../../../core/notifications/types';

class MemoryNotifications implements NotificationStore {
  readonly subscriptions: NotificationRecord[] = [];
  readonly deliveries = new Map<string, DeliveryRecord>();
  async putNotification(record: NotificationRecord) {
    this.subscriptions.push(record);
  }
  async getNotification(workspaceId: string, id: string) {
    return this.subscriptions.find((record) => record.workspaceId === workspaceId && record.id === id);
  }
  async listNotifications(workspaceId: string) {
    return this.subscriptions.filter((record) => record.workspaceId === workspaceId);
  }
  async deleteNotification() {
    return true;
  }
  async createDelivery(delivery: DeliveryRecord) {
    if (this.deliveries.has(delivery.id)) return false;
    this.deliveries.set(delivery.id, delivery);
    return true;
  }
  async getDelivery(key: DeliveryMessage) {
    return this.deliveries.get(key.deliveryId);
  }
  async putDelivery(delivery: DeliveryRecord) {
    this.deliveries.set(delivery.id, delivery);
  }
  async listDeliveries() {
    return [...this.deliveries.values()];
  }
  async listNoActivitySubscriptions() {
    return this.subscriptions
      .filter((record) => record.alert?.rule === 'no_activity')
      .map((record) => ({ workspaceId: record.workspaceId, id: record.id }));
  }
  readonly alerts = new Map<string, { state: AlertStateRecord; version: number }>();
  async getAlertState(notificationId: string, workflowId: string) {
    return this.alerts.get(`${notificationId}|${workflowId}`);
  }
  async putAlertState(
    notificationId: string,
    workflowId: string,
    state: AlertStateRecord,
    expectedVersion: number,
  ) {
    const key = `${notificationId}|${workflowId}`;
    if ((this.alerts.get(key)?.version ?? 0) !== expectedVersion) return false;
    this.alerts.set(key, { state, version: expectedVersion + 1 });
    return true;
  }
}

const cipher: SecretCipher = {
  encrypt: async (text) => `enc:${text}`,
  decrypt: async (text) => text.replace(/^enc:/, ''),
};

const subscription = subscriptionOf;

const event = completionEventOf('exe_1', { level: 'error' });

/** An HTTP client that answers from a script, one entry per call, and records what it sent. */
function scripted(...script: Array<number | Error>) {
  const sent: HttpRequest[] = [];
  const http: HttpClient = {
    async request(request): Promise<HttpResponse> {
      sent.push(request);
      const next = script.shift() ?? 200;
      if (next instanceof Error) throw next;
      return { status: next, headers: {}, body: new TextEncoder().encode('ok') };
    },
  };
  return { http, sent };
}

async function dispatched(store: MemoryNotifications) {
  const queued: DeliveryMessage[] = [];
  await dispatchEvent(
    {
      notifications: store,
      queue: { publishEvent: async () => {}, enqueueDelivery: async (m) => void queued.push(m) },
      logs: { getLogEntry: async () => undefined },
    },
    event,
  );
  return queued;
}

describe('dispatchEvent', () => {
  it('records one delivery per matching subscription, and none again for a redelivered event', async () => {
    // Prepare
    const store = new MemoryNotifications();
    await store.putNotification(subscription());
    await store.putNotification(subscription({ id: 'ntf_2', levelFilter: ['info'] }));
    await store.putNotification(
      subscription({ id: 'ntf_3', allWorkflows: false, workflowIds: ['wf_other'] }),
    );
    await store.putNotification(subscription({ id: 'ntf_4', active: false }));

    // Act
    const first = await dispatched(store);
    const again = await dispatched(store);

    // Assess
    expect(first.map((message) => message.notificationId)).toEqual(['ntf_1']);
    expect(again.map((message) => message.deliveryId)).toEqual([deliveryIdOf('evt_exe_1', 'ntf_1')]);
    expect(store.deliveries.size).toBe(1);
  });
});

describe('attemptDelivery', () => {
  async function prepared(...script: Array<number | Error>) {
    const store = new MemoryNotifications();
    await store.putNotification(subscription());
    const [message] = await dispatched(store);
    let now = Date.parse('2026-01-01T10:00:01.000Z');
    const client = scripted(...script);
    const deps = {
      notifications: store,
      cipher,
      http: client.http,
      now: () => new Date(now),
      random: () => 0.5,
    };
    return {
      store,
      sent: client.sent,
      attempt: () => attemptDelivery(deps, message as DeliveryMessage),
      advance: (ms: number) => {
        now += ms;
      },
      delivery: () => store.deliveries.get((message as DeliveryMessage).deliveryId) as DeliveryRecord,
    };
  }

  it('signs each attempt with its own timestamp and the same delivery id', async () => {
    // Prepare
    const run = await prepared(500, 200);

    // Act
    const first = await run.attempt();
    run.advance(6_000);
    const second = await run.attempt();

    // Assess
    expect(first).toEqual({ kind: 'retry', delayInMs: 5_250 });
    expect(second).toEqual({ kind: 'done' });
    const [a, b] = run.sent;
    expect(a?.headers?.['svc-delivery-id']).toBe(b?.headers?.['svc-delivery-id']);
    expect(a?.headers?.['svc-timestamp']).toBe(String(Date.parse('2026-01-01T10:00:01.000Z')));
    expect(b?.headers?.['svc-timestamp']).toBe(String(Date.parse('2026-01-01T10:00:07.000Z')));
    expect(b?.headers?.['svc-signature']).toMatch(/^t=1767261607000,v1=[0-9a-f]{64}$/);
    expect(run.delivery()).toMatchObject({ status: 'success', attempts: 2, responseStatus: 200 });
    expect(run.delivery().history.map((entry) => entry.responseStatus)).toEqual([500, 200]);
  });

  it('tries five times on 5xx, 429, time-outs and refused connections, waiting the schedule, then fails', async () => {
    // Prepare
    const run = await prepared(
      503,
      429,
      new OutboundRequestFailedError('Request to hooks.example.com timed out after 30000 ms'),
      new OutboundRequestFailedError('Request to hooks.example.com failed: connect ECONNREFUSED'),
      500,
    );

    // Act
    const results = [];
    for (let attempt = 0; attempt < 5; attempt++) results.push(await run.attempt());
    const afterwards = await run.attempt();

    // Assess
    expect(results).toEqual([
      { kind: 'retry', delayInMs: 5_250 },
      { kind: 'retry', delayInMs: 15_750 },
      { kind: 'retry', delayInMs: 63_000 },
      { kind: 'retry', delayInMs: 189_000 },
      { kind: 'done' },
    ]);
    expect(run.delivery()).toMatchObject({ status: 'failed', attempts: 5, responseStatus: 500 });
    expect(afterwards).toEqual({ kind: 'done' });
    expect(run.sent).toHaveLength(5);
  });

  it.each([[400], [404], [301]])('does not retry an answer of %i', async (status) => {
    // Prepare
    const run = await prepared(status);

    // Act
    const result = await run.attempt();

    // Assess
    expect(result).toEqual({ kind: 'done' });
    expect(run.delivery()).toMatchObject({ status: 'failed', attempts: 1, responseStatus: status });
  });

  it('sends nothing for a duplicate message of a finished delivery', async () => {
    // Prepare
    const run = await prepared(200);
    await run.attempt();

    // Act
    const duplicate = await run.attempt();

    // Assess
    expect(duplicate).toEqual({ kind: 'done' });
    expect(run.sent).toHaveLength(1);
  });
});

describe('alert subscriptions', () => {
  it('send nothing for runs below the threshold, then one workflow.alert at it, with the run', async () => {
    // Prepare
    const store = new MemoryNotifications();
    await store.putNotification(
      subscription({ alert: { rule: 'consecutive_failures', threshold: 2 }, levelFilter: ['error'] }),
    );
    const queued: DeliveryMessage[] = [];
    const deps = {
      notifications: store,
      queue: {
        publishEvent: async () => {},
        enqueueDelivery: async (m: DeliveryMessage) => void queued.push(m),
      },
      logs: { getLogEntry: async () => undefined },
      workflows: { getWorkflow: async () => ({ name: 'Nightly import' }) },
    };
    const failure = (n: number): CompletionEvent => ({
      ...event,
      id: `evt_${n}`,
      executionId: `exe_${n}`,
      timestamp: event.timestamp + n,
    });

    // Act
    await dispatchEvent(deps, failure(1));
    const afterOne = queued.length;
    await dispatchEvent(deps, failure(2));
    await dispatchEvent(deps, failure(2));

    // Assess
    expect(afterOne).toBe(0);
    expect(store.deliveries.size).toBe(1);
    const [delivery] = [...store.deliveries.values()];
    expect(delivery?.eventType).toBe('workflow.alert');
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({
      type: 'workflow.alert',
      data: {
        workflowId: 'wf_1',
        workflowName: 'Nightly import',
        alert: { rule: 'consecutive_failures', threshold: 2, observed: 2, message: '2 runs failed in a row' },
        execution: { executionId: 'exe_2', status: 'error' },
      },
    });
  });

  it('no_activity: the scheduled check alerts once the hours have passed, and once per cooldown', async () => {
    // Prepare
    const store = new MemoryNotifications();
    await store.putNotification(
      subscription({
        alert: { rule: 'no_activity', threshold: 2 },
        allWorkflows: false,
        workflowIds: ['wf_1'],
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
    );
    const queued: DeliveryMessage[] = [];
    let now = Date.parse('2026-01-01T01:59:00.000Z');
    const deps = {
      notifications: store,
      queue: {
        publishEvent: async () => {},
        enqueueDelivery: async (m: DeliveryMessage) => void queued.push(m),
      },
      workflows: { getWorkflow: async () => ({ name: 'Quiet' }), listWorkflows: async () => [] },
      now: () => new Date(now),
    };

    // Act
    const early = await checkInactivity(deps);
    now = Date.parse('2026-01-01T02:00:00.000Z');
    const due = await checkInactivity(deps);
    now = Date.parse('2026-01-01T02:15:00.000Z');
    const cooling = await checkInactivity(deps);

    // Assess
    expect([early, due, cooling]).toEqual([0, 1, 0]);
    const [delivery] = [...store.deliveries.values()];
    expect(JSON.parse(delivery?.body ?? '{}').data).toMatchObject({
      workflowId: 'wf_1',
      workflowName: 'Quiet',
      alert: { rule: 'no_activity', threshold: 2, observed: 2 },
    });
    expect(queued).toHaveLength(1);
  });
});
