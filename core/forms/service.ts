/**
 * Form use cases. Management (workspace `write` to change, `read` to see): create (deploying the
 * workflow when it is not), list, get, update, delete. The public side: the page's config, and a
 * submission's access check and run input. Starting the run is the job service's (an async run,
 * trigger `form`, acting as the form's creator).
 */
import { startInputFormat } from '../engine/input';
import type { WorkflowGraph } from '../engine/types';
import {
  ConflictError,
  EmailNotAllowedError,
  type ErrorDetail,
  InvalidPasswordError,
  isServiceError,
  NotFoundError,
  ValidationError,
} from '../errors';
import { newId } from '../ids';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore, WorkspacePermission } from '../identity/types';
import { deployRecord, loadWorkflow } from '../workflows/service';
import type { WorkflowRecord, WorkflowStore } from '../workflows/types';
import { formFieldsOf } from './fields';
import { hashPassword, verifyPassword } from './password';
import { emailAllowed, normalizeEmail } from './rules';
import type {
  FormAuthType,
  FormFieldOverride,
  FormRecord,
  FormStore,
  FormView,
  PublicFormConfig,
} from './types';

export interface FormDeps {
  identity: IdentityStore;
  workflows: WorkflowStore;
  forms: FormStore;
  now: () => Date;
}

export const defaultThankYouMessage = 'Thank you! Your submission has been received.';
export const noInputFieldsMessage = 'No input fields configured';

export interface FormSettings {
  identifier: string;
  title: string;
  description?: string | null;
  fields?: Record<string, FormFieldOverride>;
  authType: FormAuthType;
  password?: string;
  allowedEmails?: string[];
  thankYouMessage?: string | null;
}

export type FormPatch = Partial<FormSettings>;

export function formUrl(baseUrl: string, identifier: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/form/${identifier}`;
}

export function formView(record: FormRecord, baseUrl: string): FormView {
  const { passwordHash, ...rest } = record;
  return { ...rest, hasPassword: passwordHash !== undefined, url: formUrl(baseUrl, record.identifier) };
}

async function loadForm(
  deps: FormDeps,
  principal: Principal,
  formId: string,
  needed: WorkspacePermission,
): Promise<FormRecord> {
  const notFound = `Form ${formId} not found`;
  const record = await deps.forms.getForm(formId);
  if (!record) throw new NotFoundError(notFound);
  await requireWorkspaceAccess(deps.identity, principal.user.id, record.workspaceId, needed, notFound);
  return record;
}

/** Overrides may only name fields the workflow's Start block has, so a typo is not silently kept. */
function checkOverrides(graph: WorkflowGraph, fields: Record<string, FormFieldOverride> | undefined): void {
  if (!fields) return;
  const names = new Set(startInputFormat(graph).map((field) => field.name));
  const unknown = Object.keys(fields).filter((name) => !names.has(name));
  if (unknown.length === 0) return;
  throw new ValidationError(
    `fields: the Start block has no input field ${unknown.map((name) => `"${name}"`).join(', ')}`,
    unknown.map((name) => ({ path: `fields.${name}`, message: 'No such input field in the Start block' })),
  );
}

/** The access part of a form: a password hash only for `password`, an address list only for `email`. */
async function accessOf(
  authType: FormAuthType,
  given: { password?: string; allowedEmails?: string[] },
  current?: FormRecord,
): Promise<Pick<FormRecord, 'passwordHash' | 'allowedEmails'>> {
  if (given.password !== undefined && authType !== 'password') {
    throw new ValidationError('password: only a form with authType "password" has one', [
      { path: 'password', message: 'Only for authType "password"' },
    ]);
  }
  if (given.allowedEmails !== undefined && authType !== 'email') {
    throw new ValidationError('allowedEmails: only a form with authType "email" has them', [
      { path: 'allowedEmails', message: 'Only for authType "email"' },
    ]);
  }
  if (authType === 'password') {
    if (given.password !== undefined) return { passwordHash: await hashPassword(given.password) };
    if (current?.passwordHash) return { passwordHash: current.passwordHash };
    throw new ValidationError('password: a form with authType "password" needs one', [
      { path: 'password', message: 'Required for authType "password"' },
    ]);
  }
  if (authType === 'email') {
    const list = given.allowedEmails ?? current?.allowedEmails;
    if (list && list.length > 0) return { allowedEmails: [...new Set(list.map(normalizeEmail))] };
    throw new ValidationError('allowedEmails: a form with authType "email" needs at least one entry', [
      { path: 'allowedEmails', message: 'Required for authType "email"' },
    ]);
  }
  return {};
}

function textOrAbsent(value: string | null | undefined, current: string | undefined): string | undefined {
  if (value === null) return undefined;
  return value ?? current;
}

export async function createForm(
  deps: FormDeps,
  principal: Principal,
  input: FormSettings & { workflowId: string },
  baseUrl: string,
): Promise<FormView> {
  const workflow = await loadWorkflow(deps, principal, input.workflowId, 'write');
  checkOverrides(workflow.state, input.fields);
  const now = deps.now().toISOString();
  const record: FormRecord = {
    id: newId('form'),
    workflowId: workflow.id,
    workspaceId: workflow.workspaceId,
    identifier: input.identifier,
    title: input.title,
    ...(input.description ? { description: input.description } : {}),
    ...(input.fields ? { fields: input.fields } : {}),
    authType: input.authType,
    ...(await accessOf(input.authType, input)),
    ...(input.thankYouMessage ? { thankYouMessage: input.thankYouMessage } : {}),
    createdBy: principal.user.id,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await deps.forms.createForm(record))) await reclaimIdentifier(deps, record);
  // A form is for people to use at once: its workflow is deployed if it is not yet.
  if (!workflow.isDeployed) await deployRecord(deps, workflow, principal.user.id);
  return formView(record, baseUrl);
}

/**
 * An identifier stays taken while its form's workflow exists. One whose workflow was deleted (and
 * the cleanup of its forms did not happen) is free: the new form replaces that one only.
 */
async function reclaimIdentifier(deps: FormDeps, record: FormRecord): Promise<void> {
  const taken = () =>
    new ConflictError(`Form identifier "${record.identifier}" is taken: choose another`, {
      details: [{ path: 'identifier', message: 'Taken by another form' }],
    });
  const holder = await deps.forms.getFormByIdentifier(record.identifier);
  if (holder && (await deps.workflows.getWorkflow(holder.workflowId))) throw taken();
  if (!holder || !(await deps.forms.replaceForm(holder, record))) throw taken();
}

export async function listForms(
  deps: FormDeps,
  principal: Principal,
  workspaceId: string,
  baseUrl: string,
): Promise<FormView[]> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, workspaceId, 'read');
  return (await deps.forms.listForms(workspaceId)).map((record) => formView(record, baseUrl));
}

export async function getForm(
  deps: FormDeps,
  principal: Principal,
  formId: string,
  baseUrl: string,
): Promise<FormView> {
  return formView(await loadForm(deps, principal, formId, 'read'), baseUrl);
}

export async function updateForm(
  deps: FormDeps,
  principal: Principal,
  formId: string,
  patch: FormPatch,
  baseUrl: string,
): Promise<FormView> {
  const current = await loadForm(deps, principal, formId, 'write');
  if (patch.fields) {
    const workflow = await loadWorkflow(deps, principal, current.workflowId, 'write');
    checkOverrides(workflow.state, patch.fields);
  }
  const authType = patch.authType ?? current.authType;
  const { passwordHash: _hash, allowedEmails: _list, description, thankYouMessage, ...kept } = current;
  const next: FormRecord = {
    ...kept,
    identifier: patch.identifier ?? current.identifier,
    title: patch.title ?? current.title,
    ...optional('description', textOrAbsent(patch.description, description)),
    fields: patch.fields ?? current.fields,
    authType,
    ...(await accessOf(authType, patch, current)),
    ...optional('thankYouMessage', textOrAbsent(patch.thankYouMessage, thankYouMessage)),
    updatedAt: deps.now().toISOString(),
  };
  if (next.fields === undefined) delete next.fields;
  if (!(await deps.forms.replaceForm(current, next))) {
    if (next.identifier !== current.identifier && (await deps.forms.getFormByIdentifier(next.identifier))) {
      throw new ConflictError(`Form identifier "${next.identifier}" is taken: choose another`, {
        details: [{ path: 'identifier', message: 'Taken by another form' }],
      });
    }
    throw new ConflictError(`Form ${formId} was changed meanwhile: read it again and retry`);
  }
  return formView(next, baseUrl);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, string>);
}

export async function deleteForm(
  deps: FormDeps,
  principal: Principal,
  formId: string,
): Promise<{ id: string; deleted: true }> {
  const current = await loadForm(deps, principal, formId, 'write');
  await deps.forms.deleteForm(current);
  return { id: formId, deleted: true };
}

/** Removes every form of a workflow, so that their identifiers are free again once it is deleted. */
export async function deleteWorkflowForms(deps: Pick<FormDeps, 'forms'>, workflowId: string): Promise<void> {
  for (const form of await deps.forms.listWorkflowForms(workflowId)) await deps.forms.deleteForm(form);
}

// The public side

const formNotFound = () => new NotFoundError('Form not found');

/** The form at an identifier; anything else, a malformed identifier included, is a 404. */
export async function findPublicForm(deps: Pick<FormDeps, 'forms'>, identifier: string): Promise<FormRecord> {
  const form = await deps.forms.getFormByIdentifier(identifier);
  if (!form) throw formNotFound();
  return form;
}

/**
 * The graph a submission runs: the workflow's current deployment. A form whose workflow is gone
 * or undeployed is not found, as far as the public can tell.
 */
async function deployedGraphOf(
  deps: FormDeps,
  form: FormRecord,
): Promise<{ workflow: WorkflowRecord; graph: WorkflowGraph }> {
  const workflow = await deps.workflows.getWorkflow(form.workflowId);
  if (!workflow?.isDeployed || workflow.deployedVersion === undefined) throw formNotFound();
  const deployment = await deps.workflows.getDeployment(workflow.id, workflow.deployedVersion);
  if (!deployment) throw formNotFound();
  return { workflow, graph: deployment.state };
}

export async function publicFormConfig(deps: FormDeps, form: FormRecord): Promise<PublicFormConfig> {
  const { graph } = await deployedGraphOf(deps, form);
  return {
    identifier: form.identifier,
    title: form.title,
    ...(form.description ? { description: form.description } : {}),
    authType: form.authType,
    thankYouMessage: form.thankYouMessage ?? defaultThankYouMessage,
    fields: formFieldsOf(graph, form.fields),
  };
}

export interface FormCredentials {
  password?: string;
  email?: string;
}

/**
 * Whether a request brings what the form's access mode asks for (a password, an address). Without
 * it, a password or e-mail form's config answers only its mode: nothing of the form is shown
 * before access is proven.
 */
export function bringsCredentials(form: Pick<FormRecord, 'authType'>, credentials: FormCredentials): boolean {
  if (form.authType === 'password') return Boolean(credentials.password);
  if (form.authType === 'email') return Boolean(credentials.email?.trim());
  return true;
}

/** A refusal of the access check itself (wrong password, address not admitted): what a form counts. */
export function isAccessRefusal(error: unknown): boolean {
  return error instanceof InvalidPasswordError || error instanceof EmailNotAllowedError;
}

/**
 * Checks the submitter against the form's access mode and names who the run acts as: the form's
 * creator. A missing or wrong password is a 401 `INVALID_PASSWORD`; an address the list does not
 * admit (or none) a 403 `EMAIL_NOT_ALLOWED`.
 */
export async function checkFormAccess(
  deps: FormDeps,
  form: FormRecord,
  credentials: FormCredentials,
): Promise<Principal> {
  if (form.authType === 'password') {
    if (!credentials.password) throw new InvalidPasswordError('This form needs a password');
    if (!form.passwordHash || !(await verifyPassword(credentials.password, form.passwordHash))) {
      throw new InvalidPasswordError('The password is not correct');
    }
  }
  if (form.authType === 'email') {
    // Pasted addresses often bring a space or a line break along; the list never holds one.
    const email = credentials.email?.trim();
    if (!email) throw new EmailNotAllowedError('This form needs the e-mail address you submit as');
    if (!emailAllowed(form.allowedEmails ?? [], email)) {
      throw new EmailNotAllowedError('This e-mail address may not submit this form');
    }
  }
  const user = await deps.identity.getUser(form.createdBy);
  if (!user) throw formNotFound();
  return { user, apiKeyId: `form:${form.id}` };
}

/**
 * The run input of a submission, checked against the form's fields: a form without fields takes
 * nothing, and a member that is not a field is refused (strangers may not hand the workflow
 * inputs the page does not offer). Types and required fields are checked by `prepareRun`.
 */
export async function formRunInput(
  deps: FormDeps,
  form: FormRecord,
  formData: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { graph } = await deployedGraphOf(deps, form);
  const names = new Set(startInputFormat(graph).map((field) => field.name));
  if (names.size === 0) throw new ValidationError(noInputFieldsMessage);
  const unknown = Object.keys(formData).filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      `formData: this form has no field ${unknown.map((name) => `"${name}"`).join(', ')}`,
      unknown.map((name) => ({ path: `formData.${name}`, message: 'No such field in this form' })),
    );
  }
  return formData;
}

/** A run input error, named by the submission's member (`formData.<field>`), as the page shows it. */
export function asFormDataError(error: unknown): unknown {
  if (!isServiceError(error) || !(error instanceof ValidationError)) return error;
  const details: ErrorDetail[] = (error.details ?? []).map((detail) => ({
    ...detail,
    path: detail.path.startsWith('formData') ? detail.path : `formData.${detail.path}`,
  }));
  return new ValidationError(error.message, details, { cause: error });
}
