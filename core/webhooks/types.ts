/**
 * Webhook triggers: a path under `/api/webhooks/trigger/` that starts its workflow when called.
 * A webhook acts as the user who created it; its secret, if any, is stored encrypted and only ever
 * shown as `hasSecret`.
 */

export interface WebhookRecord {
  id: string;
  workflowId: string;
  workspaceId: string;
  path: string;
  /** The user the runs it starts act as. */
  createdBy: string;
  /** The secret, envelope-encrypted under the workspace id; absent for a webhook without one. */
  secretCiphertext?: string;
  createdAt: string;
}

/** What the API shows of a webhook. */
export interface WebhookView {
  id: string;
  workflowId: string;
  path: string;
  url: string;
  hasSecret: boolean;
  createdAt: string;
}

/** Port. */
export interface WebhookStore {
  /**
   * Stores a new webhook; false (nothing written) when its path is taken already. With
   * `replacingId`, the path may be taken by that webhook (and only that one), which is overwritten.
   */
  createWebhook(record: WebhookRecord, options?: { replacingId?: string }): Promise<boolean>;
  getWebhookByPath(path: string): Promise<WebhookRecord | undefined>;
  /** Oldest first. */
  listWebhooks(workflowId: string): Promise<WebhookRecord[]>;
  /** Removes the webhook; the removed record, or undefined when the workflow has no such webhook. */
  deleteWebhook(workflowId: string, webhookId: string): Promise<WebhookRecord | undefined>;
}
