/** Forms: managing them, and the public page config and submission. Spread into the route table (catalog/routes.ts). */
import * as forms from './form-schemas';
import { type RouteDefinition, entities, entitiesWrite, workflowGraphs } from './route-definition';
import * as s from './schemas';
import * as z from './zod';

export const formRoutes = [
  // Forms
  {
    id: 'createForm',
    method: 'POST',
    path: '/api/forms',
    entry: 'functions/forms/create.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Offer a workflow as a public form page (deploys the workflow when it is not deployed)',
    tag: 'forms',
    request: { body: forms.createFormBody },
    responses: { 201: { description: 'Created', body: s.data(forms.formView) } },
    // Creating a form may deploy its workflow, which applies the workflow's schedule.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'readWrite' }, schedules: 'manage' },
  },
  {
    id: 'listForms',
    method: 'GET',
    path: '/api/forms',
    entry: 'functions/forms/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "A workspace's forms",
    tag: 'forms',
    request: { query: forms.listFormsQuery },
    responses: { 200: { description: 'Forms, oldest first', body: s.data(z.array(forms.formView)) } },
    access: { ...entities, ...workflowGraphs },
  },
  {
    id: 'getForm',
    method: 'GET',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'A form (its password only as hasPassword)',
    tag: 'forms',
    request: { params: forms.formIdParams },
    responses: { 200: { description: 'The form', body: s.data(forms.formView) } },
    access: { ...entities, ...workflowGraphs },
  },
  {
    id: 'updateForm',
    method: 'PUT',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/update.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Change a form; the members given replace its own',
    tag: 'forms',
    request: { params: forms.formIdParams, body: forms.updateFormBody },
    responses: { 200: { description: 'The form as changed', body: s.data(forms.formView) } },
    // Files: a workflow whose graph is large is kept in the bucket (field overrides are checked against it).
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' } },
  },
  {
    id: 'deleteForm',
    method: 'DELETE',
    path: '/api/forms/{formId}',
    entry: 'functions/forms/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Remove a form; its identifier is free again',
    tag: 'forms',
    request: { params: forms.formIdParams },
    responses: { 200: { description: 'Deleted' } },
    access: { ...entitiesWrite, ...workflowGraphs },
  },
  {
    id: 'getFormConfig',
    method: 'GET',
    path: '/api/form/{identifier}',
    entry: 'functions/forms/config.ts',
    auth: 'none',
    permission: 'public',
    summary:
      "A form page's settings and fields (never its password or address list); a password or e-mail form's only with header x-form-password or x-form-email",
    tag: 'forms',
    request: { params: forms.formIdentifierParams },
    responses: {
      200: { description: 'The page config', body: s.data(forms.publicFormConfig) },
      401: {
        description:
          'A password or e-mail form, asked without x-form-password / x-form-email: only its access mode',
        body: forms.formAccessNeeded,
      },
    },
    // Files: a deployment whose graph is large is kept in the bucket.
    access: { tables: { entities: 'read' }, buckets: { files: 'read' } },
    // A read with credentials is limited as a submission is (functions/forms/access.ts).
    rateLimit: 'handler',
  },
  {
    id: 'submitForm',
    method: 'POST',
    path: '/api/form/{identifier}',
    entry: 'functions/forms/submit.ts',
    auth: 'none',
    permission: 'public',
    summary: "Submit a form: starts its workflow asynchronously (trigger form) as the form's creator",
    tag: 'forms',
    request: { params: forms.formIdentifierParams, body: forms.formSubmissionBody },
    responses: { 200: { description: 'Accepted; the run is queued', body: forms.formSubmissionResult } },
    // A run's input files given by URL are fetched through the outbound guard.
    makesOutboundRequests: true,
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      buckets: { files: 'readWrite' },
      queues: { jobs: 'send' },
      keys: { environment: 'decrypt' },
    },
    // Per source address, failed attempts per form, then the creator's async bucket (functions/http/limits.ts).
    rateLimit: 'handler',
  },
] as const satisfies readonly RouteDefinition[];
