import { describe, expect, it } from 'vitest';
import {
  cachedSubscriptions,
  forgettingSubscriptionWrites,
  matchingFromCache,
} from '../../../core/notifications/subscription-cache';
import type { NotificationRecord, NotificationStore } from '../../../core/notifications/types';
import { fakeClock } from '../../support/clock';
import { subscriptionOf } from '../../support/subscription';

const subscription = (id: string, workspaceId = 'ws_1'): NotificationRecord =>
  subscriptionOf({ id, workspaceId });

/** The subscriptions every process sees and changes, with a count of the listings that reach them. */
function sharedStore() {
  const records = new Map<string, NotificationRecord>();
  const reads = { listings: 0 };
  const store = {
    async listNotifications(workspaceId: string) {
      reads.listings += 1;
      return [...records.values()].filter((record) => record.workspaceId === workspaceId);
    },
    async putNotification(record: NotificationRecord) {
      records.set(record.id, record);
    },
    async deleteNotification(_workspaceId: string, id: string) {
      return records.delete(id);
    },
    async getNotification(_workspaceId: string, id: string) {
      return records.get(id);
    },
  };
  return { store: store as unknown as NotificationStore, records, reads };
}

/** The worker's store and a management route's store of one process, over the shared records. */
function oneProcess(shared: ReturnType<typeof sharedStore>, nowInMs: () => number, ttlInMs = 10_000) {
  const cache = cachedSubscriptions(shared.store, { ttlInMs, nowInMs });
  return {
    worker: matchingFromCache(shared.store, cache),
    routes: forgettingSubscriptionWrites(shared.store, cache),
  };
}

describe('cachedSubscriptions', () => {
  it("reads a workspace's subscriptions once within the bound, none kept too, and again after it", async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const { worker } = oneProcess(shared, clock.nowInMs);

    // Act
    const first = await worker.listNotifications('ws_1');
    clock.advance(9_999);
    await worker.listNotifications('ws_1');
    const readsWithin = shared.reads.listings;
    clock.advance(1);
    await worker.listNotifications('ws_1');

    // Assess
    expect(first).toEqual([]);
    expect(readsWithin).toBe(1);
    expect(shared.reads.listings).toBe(2);
  });

  it('matches a subscription created in another process once the bound has passed, not before', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const here = oneProcess(shared, clock.nowInMs);
    const elsewhere = oneProcess(shared, clock.nowInMs);
    await here.worker.listNotifications('ws_1');

    // Act
    await elsewhere.routes.putNotification(subscription('ntf_1'));
    clock.advance(9_999);
    const within = await here.worker.listNotifications('ws_1');
    clock.advance(1);
    const after = await here.worker.listNotifications('ws_1');

    // Assess
    expect(within).toEqual([]);
    expect(after.map((record) => record.id)).toEqual(['ntf_1']);
  });

  it('stops matching a subscription deleted in another process once the bound has passed, not before', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const here = oneProcess(shared, clock.nowInMs);
    const elsewhere = oneProcess(shared, clock.nowInMs);
    await here.routes.putNotification(subscription('ntf_1'));
    await here.worker.listNotifications('ws_1');

    // Act
    await elsewhere.routes.deleteNotification('ws_1', 'ntf_1');
    clock.advance(9_999);
    const within = await here.worker.listNotifications('ws_1');
    clock.advance(1);
    const after = await here.worker.listNotifications('ws_1');

    // Assess
    expect(within.map((record) => record.id)).toEqual(['ntf_1']);
    expect(after).toEqual([]);
  });

  it('sees a subscription created, changed or deleted through the same process at once', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const { worker, routes } = oneProcess(shared, clock.nowInMs);
    await worker.listNotifications('ws_1');

    // Act
    await routes.putNotification(subscription('ntf_1'));
    const created = await worker.listNotifications('ws_1');
    await routes.putNotification({ ...subscription('ntf_1'), active: false });
    const changed = await worker.listNotifications('ws_1');
    await routes.deleteNotification('ws_1', 'ntf_1');
    const deleted = await worker.listNotifications('ws_1');

    // Assess
    expect(created.map((record) => record.id)).toEqual(['ntf_1']);
    expect(changed.map((record) => record.active)).toEqual([false]);
    expect(deleted).toEqual([]);
  });

  it('keeps each workspace apart, and the management routes always read the store', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const { worker, routes } = oneProcess(shared, clock.nowInMs);
    const elsewhere = oneProcess(shared, clock.nowInMs);
    await worker.listNotifications('ws_1');
    await worker.listNotifications('ws_2');

    // Act
    await elsewhere.routes.putNotification(subscription('ntf_2', 'ws_2'));
    const matched = await worker.listNotifications('ws_2');
    const listedByRoute = await routes.listNotifications('ws_2');

    // Assess
    expect(matched).toEqual([]);
    expect(listedByRoute.map((record) => record.id)).toEqual(['ntf_2']);
  });

  it('keeps nothing with a bound of 0', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const { worker } = oneProcess(shared, clock.nowInMs, 0);

    // Act
    await worker.listNotifications('ws_1');
    await worker.listNotifications('ws_1');

    // Assess
    expect(shared.reads.listings).toBe(2);
  });
});
