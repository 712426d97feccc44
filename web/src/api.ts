/** The page's two calls, to its own origin's `/api/form/<identifier>`. */
import type { FormConfig, ServerError } from './values';

/** What proves access to a password or e-mail form. */
export interface Credentials {
  password?: string;
  email?: string;
}

export type Answer<T> = { ok: true; data: T } | { ok: false; error: ServerError };

const path = (identifier: string) => `/api/form/${encodeURIComponent(identifier)}`;

/**
 * The form's configuration; a password or e-mail form gives it only with its credentials, sent in
 * headers (never in the address), percent-encoded since a header carries no more than Latin-1.
 */
export function loadConfig(identifier: string, credentials: Credentials = {}): Promise<Answer<FormConfig>> {
  const headers: Record<string, string> = {};
  if (credentials.password !== undefined)
    headers['x-form-password'] = encodeURIComponent(credentials.password);
  if (credentials.email !== undefined) headers['x-form-email'] = encodeURIComponent(credentials.email);
  return call<FormConfig>(path(identifier), { method: 'GET', headers });
}

export interface Submission extends Credentials {
  formData: Record<string, unknown>;
}

export function submitForm(
  identifier: string,
  submission: Submission,
): Promise<Answer<{ executionId: string }>> {
  return call(path(identifier), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(submission),
  });
}

async function call<T>(url: string, init: RequestInit): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    return { ok: false, error: { status: 0 } };
  }
  const body = await response.json().catch(() => undefined);
  if (response.ok && body?.data) return { ok: true, data: body.data as T };
  const retryAfter = Number(response.headers.get('retry-after'));
  return {
    ok: false,
    error: {
      status: response.ok ? 500 : response.status,
      authType: body?.authType === 'password' || body?.authType === 'email' ? body.authType : undefined,
      code: body?.code,
      message: typeof body?.error === 'string' ? body.error : undefined,
      details: Array.isArray(body?.details) ? body.details : undefined,
      retryAfterInSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    },
  };
}
