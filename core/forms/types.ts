/**
 * Forms: a deployed workflow offered as a public page at `/form/<identifier>`. Submitting it starts
 * an asynchronous run (trigger `form`) that acts as the user who created the form.
 */
import type { InputFieldType } from '../engine/types';

export const formAuthTypes = ['public', 'password', 'email'] as const;
export type FormAuthType = (typeof formAuthTypes)[number];

/** Label and description shown instead of the input field's own name and description. */
export interface FormFieldOverride {
  label?: string;
  description?: string;
}

export interface FormRecord {
  id: string;
  workflowId: string;
  workspaceId: string;
  /** Unique across the service: lowercase letters, digits and hyphens, at most 100 characters. */
  identifier: string;
  title: string;
  description?: string;
  /** Overrides by Start input name. */
  fields?: Record<string, FormFieldOverride>;
  authType: FormAuthType;
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>` (password.ts); only for `password` forms. */
  passwordHash?: string;
  /** Exact addresses and `@domain` patterns, lowercase; only for `email` forms. */
  allowedEmails?: string[];
  thankYouMessage?: string;
  /** The user its runs act as. */
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/** What the management API shows of a form: never the password hash, only whether there is one. */
export interface FormView extends Omit<FormRecord, 'passwordHash'> {
  hasPassword: boolean;
  /** Where the page is served. */
  url: string;
}

/** A field of the page, derived from the deployed Start block's input format. */
export interface FormField {
  name: string;
  type: InputFieldType;
  label: string;
  description?: string;
  required: boolean;
  default?: unknown;
}

/** What the public page is given: never the password or the address list. */
export interface PublicFormConfig {
  identifier: string;
  title: string;
  description?: string;
  authType: FormAuthType;
  thankYouMessage: string;
  fields: FormField[];
}

/** Port. */
export interface FormStore {
  /** Stores a new form; false (nothing written) when its identifier is taken. */
  createForm(record: FormRecord): Promise<boolean>;
  /** The form served at `identifier` (one read: the public pages' path). */
  getFormByIdentifier(identifier: string): Promise<FormRecord | undefined>;
  getForm(formId: string): Promise<FormRecord | undefined>;
  /** Oldest first. */
  listForms(workspaceId: string): Promise<FormRecord[]>;
  /** The forms of a workflow, to remove them with it. */
  listWorkflowForms(workflowId: string): Promise<FormRecord[]>;
  /**
   * Replaces the form `previous` with `next` (same id). False, with nothing changed, when `next`
   * moves to an identifier that is taken or `previous` changed meanwhile.
   */
  replaceForm(previous: FormRecord, next: FormRecord): Promise<boolean>;
  /** Removes the form; false when there was none. */
  deleteForm(record: FormRecord): Promise<boolean>;
}
