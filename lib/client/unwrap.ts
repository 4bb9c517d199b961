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

/**
 * POST a body to an /api/v1 route from the page (same origin: the browser sends the `Origin` and
 * `Sec-Fetch-Site` the request policy checks, and in token mode the session cookie); its `{error}`
 * body becomes an `AppError`, a server that cannot be reached one too.
 */
export async function postApi<T>(url: string, body: BodyInit, contentType: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
      cache: "no-store",
      signal,
    });
  } catch (err) {
    throw new AppError("unavailable", `The server could not be reached: ${(err as Error).message}`);
  }
  const json = (await res.json().catch(() => null)) as { error?: unknown } | null;
  if (!res.ok) {
    const error = ErrorBody.safeParse(json?.error);
    throw error.success
      ? AppError.fromBody(error.data)
      : new AppError("internal", `POST ${url} failed with ${res.status}`);
  }
  return json as T;
}
