import type { Context, TypedResponse } from 'hono';

/**
 * A JSON response from text the caller serialised itself. Needed where key order matters: JSON.stringify (and so
 * c.json) writes integer-like keys such as project ids in ascending order, whatever order they were set in.
 * The cast only brands the Response with the route's documented body type for @hono/zod-openapi's typing.
 */
export function serializedJson<T>(c: Context, text: string, status: 200 = 200): TypedResponse<T, 200, 'json'> {
  return c.body(text, status, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<T, 200, 'json'>;
}

/** `{"k1": v1, "k2": v2}` with the entries in the order given. */
export function orderedObjectJson(entries: ReadonlyArray<readonly [string, unknown]>): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v ?? null)}`).join(',')}}`;
}

/** `{"k1": v1, "k2": v2}` from values already serialised, in the order given. */
export function orderedObjectOfJson(entries: ReadonlyArray<readonly [string, string]>): string {
  return `{${entries.map(([k, json]) => `${JSON.stringify(k)}:${json}`).join(',')}}`;
}
