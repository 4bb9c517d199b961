/** The result shape every server action returns (mirrors lib/server/action.ts without importing it). */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: { code: string; message: string; fieldErrors?: Record<string, string[]> } };

export class ActionFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fieldErrors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = "ActionFailure";
  }
}

/** Turns an action's error value into a thrown error, so react-query's error state carries it. */
export async function unwrap<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const r = await result;
  if (r.ok) return r.data;
  throw new ActionFailure(r.error.code, r.error.message, r.error.fieldErrors);
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: "no-store" });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `GET ${url} failed with ${res.status}`);
  }
  return (await res.json()) as T;
}
