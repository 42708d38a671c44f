import { STAFF_TOKEN } from './processes.js';

/** Small fetch wrappers for setting up bench data through the public APIs. */
export async function call(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export const staff = (base: string, method: string, path: string, body?: unknown) => call(base, STAFF_TOKEN, method, `/api/staff/v1${path}`, body);

export async function setupIntegration(base: string, options: { name?: string; webhook?: object; brandId?: number } = {}) {
  const brandId = options.brandId ?? (await staff(base, 'POST', '/brands', { name: 'Bench Brand' })).body.data.id;
  const res = await staff(base, 'POST', '/integrations', { brand_id: brandId, name: options.name ?? `Bench ${Math.random().toString(36).slice(2, 8)}`, webhook: options.webhook });
  if (res.status !== 201) throw new Error(`integration create failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.integration.id as number, apiKey: res.body.data.api_key as string, brandId: brandId as number };
}
