/** The page's two calls, to its own origin's `/api/form/<identifier>`. */
import type { FormConfig, ServerError } from './values';

export type Answer<T> = { ok: true; data: T } | { ok: false; error: ServerError };

const path = (identifier: string) => `/api/form/${encodeURIComponent(identifier)}`;

export function loadConfig(identifier: string): Promise<Answer<FormConfig>> {
  return call<FormConfig>(path(identifier), { method: 'GET' });
}

export interface Submission {
  formData: Record<string, unknown>;
  password?: string;
  email?: string;
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
      code: body?.code,
      message: typeof body?.error === 'string' ? body.error : undefined,
      details: Array.isArray(body?.details) ? body.details : undefined,
      retryAfterInSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    },
  };
}
