import { describe, expect, it } from 'vitest';
import { publishingWhenMatched } from '../../../core/notifications/publishing';
import type { CompletionEvent, NotificationRecord } from '../../../core/notifications/types';
import { completionEventOf } from '../../support/completion-event';
import { subscriptionOf } from '../../support/subscription';

const event = (fields: Partial<CompletionEvent> = {}) => completionEventOf('exe_1', fields);
const subscription = subscriptionOf;

/** A queue that records what it was given, over a workspace's listed subscriptions. */
function publisherOver(listed: NotificationRecord[]) {
  const published: CompletionEvent[] = [];
  const listings: string[] = [];
  const publisher = publishingWhenMatched(
    { publishEvent: async (sent) => void published.push(sent) },
    {
      listNotifications: async (workspaceId) => {
        listings.push(workspaceId);
        return listed.filter((record) => record.workspaceId === workspaceId);
      },
    },
  );
  return { publisher, published, listings };
}

describe('publishingWhenMatched', () => {
  it('publishes nothing for a workspace without subscriptions', async () => {
    // Prepare
    const { publisher, published, listings } = publisherOver([]);

    // Act
    await publisher.publishEvent(event());

    // Assess
    expect(published).toEqual([]);
    expect(listings).toEqual(['ws_1']);
  });

  it('publishes the event unchanged once when several subscriptions match it', async () => {
    // Prepare
    const { publisher, published } = publisherOver([subscription(), subscription({ id: 'ntf_2' })]);

    // Act
    await publisher.publishEvent(event());

    // Assess
    expect(published).toEqual([event()]);
  });

  it("publishes nothing when the workspace's subscriptions are inactive, for other workflows, levels or triggers", async () => {
    // Prepare
    const { publisher, published } = publisherOver([
      subscription({ active: false }),
      subscription({ allWorkflows: false, workflowIds: ['wf_other'] }),
      subscription({ levelFilter: ['error'] }),
      subscription({ triggerFilter: ['schedule'] }),
      subscription({ workspaceId: 'ws_other' }),
    ]);

    // Act
    await publisher.publishEvent(event());

    // Assess
    expect(published).toEqual([]);
  });

  it("publishes a success to an alert rule whose level filter lists errors only: successes reset the rule's count", async () => {
    // Prepare
    const { publisher, published } = publisherOver([
      subscription({ levelFilter: ['error'], alert: { rule: 'consecutive_failures', threshold: 3 } }),
    ]);

    // Act
    await publisher.publishEvent(event({ level: 'info' }));

    // Assess
    expect(published).toHaveLength(1);
  });

  it('publishes the event of a listed workflow', async () => {
    // Prepare
    const { publisher, published } = publisherOver([
      subscription({ allWorkflows: false, workflowIds: ['wf_1'] }),
    ]);

    // Act
    await publisher.publishEvent(event());

    // Assess
    expect(published).toHaveLength(1);
  });

  it('publishes the event when the subscriptions cannot be read: the worker matches it itself', async () => {
    // Prepare
    const published: CompletionEvent[] = [];
    const publisher = publishingWhenMatched(
      { publishEvent: async (sent) => void published.push(sent) },
      {
        listNotifications: async () => {
          throw new Error('table unavailable');
        },
      },
    );

    // Act
    await publisher.publishEvent(event());

    // Assess
    expect(published).toEqual([event()]);
  });

  it('fails when the queue refuses an event that a subscription matches', async () => {
    // Prepare
    const publisher = publishingWhenMatched(
      {
        publishEvent: async () => {
          throw new Error('queue unavailable');
        },
      },
      { listNotifications: async () => [subscription()] },
    );

    // Act
    const publishing = publisher.publishEvent(event());

    // Assess
    await expect(publishing).rejects.toThrow('queue unavailable');
  });
});
