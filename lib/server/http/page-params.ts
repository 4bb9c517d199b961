/**
 * What a page takes from its URL, made safe: a query value given twice is an array (the first one
 * counts), a path segment whose escapes do not decode stays as it came, and a service's `not_found`
 * (an unknown bank in `?bank=`) is the page's 404 instead of a 500.
 */
import { notFound } from "next/navigation";
import { isAppError } from "@/lib/contracts/errors";

export type SearchParams = Record<string, string | string[] | undefined>;

/** The first value of a query parameter, or undefined. */
export function queryValue(params: SearchParams, name: string): string | undefined {
  const v = params[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A path segment decoded once more when it can be (`%25FF` → `%FF`), left as it is when it cannot. */
export function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The promise's value; a `not_found` refusal becomes the page's 404. */
export async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isAppError(err, "not_found")) notFound();
    throw err;
  }
}
