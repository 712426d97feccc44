/** Workspace environment variables (`{{NAME}}` in workflows), stored encrypted, and their ports. */

/**
 * Port: encryption at rest. `context` (the workspace id) is bound to the ciphertext, so a
 * ciphertext copied to another workspace does not decrypt there.
 */
export interface SecretCipher {
  encrypt(plaintext: string, context: string): Promise<string>;
  /** Throws SecretDecryptionError when the ciphertext was altered or belongs to another context. */
  decrypt(ciphertext: string, context: string): Promise<string>;
}

/** A variable as stored: only its ciphertext, never its value. */
export interface EnvironmentVariableRecord {
  workspaceId: string;
  name: string;
  ciphertext: string;
  createdAt: string;
  updatedAt: string;
  /** Id of the user who last set the value. */
  updatedBy: string;
}

/** Port. Every method is a key lookup or a Query on the workspace's partition: no scans. */
export interface EnvironmentStore {
  /** Creates or replaces the variable. */
  putVariable(record: EnvironmentVariableRecord): Promise<void>;
  getVariable(workspaceId: string, name: string): Promise<EnvironmentVariableRecord | undefined>;
  /** The workspace's variables, ordered by name. */
  listVariables(workspaceId: string): Promise<EnvironmentVariableRecord[]>;
  countVariables(workspaceId: string): Promise<number>;
  /** Returns the deleted record, or undefined when there was none. */
  deleteVariable(workspaceId: string, name: string): Promise<EnvironmentVariableRecord | undefined>;
}
