import { type ActionResult, AppError, ErrorBody } from "@/lib/contracts/errors";

/**
 * Turns an action's error value back into the one `AppError`, so react-query's error state
 * carries its code and details (`isAppError(error, "conflict")`, `error.details.fieldErrors`).
 */
export async function unwrap<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const r = await result;
  if (r.ok) return r.data;
  throw AppError.fromBody(r.error);
}

/** GET a route handler's JSON; its `{error}` body becomes an `AppError`. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: "no-store" });
  if (!res.ok) {
    const body = ErrorBody.safeParse(((await res.json().catch(() => null)) as { error?: unknown } | null)?.error);
    throw body.success
      ? AppError.fromBody(body.data)
      : new AppError("internal", `GET ${url} failed with ${res.status}`);
  }
  return (await res.json()) as T;
}
