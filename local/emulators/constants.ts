/** Names of the local account, shared by the emulators and the in-process state machine. */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '000000000000';

/** ARN of a state machine of the catalog on the local emulators (it only names it: runs are in process). */
export function localStateMachineArn(name: string): string {
  return `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:stateMachine:${name}`;
}
