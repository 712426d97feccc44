/** The encryption context of a subscription's secrets (webhook secret, chat token): bound to it. */
export const secretContext = (workspaceId: string, notificationId: string) =>
  `notification:${workspaceId}:${notificationId}`;
