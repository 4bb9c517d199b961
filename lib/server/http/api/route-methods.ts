/**
 * Which methods an /api/v1 path has, from the endpoint declarations: the request policy checks a
 * write's content type only where the route takes that method, so a method the path lacks gets
 * the route's 405 (with `Allow`) rather than a 415 about the body it would never read.
 */
import type { Endpoint } from "./endpoint";
import { endpoints } from "./endpoints";

const ROUTES = (Object.values(endpoints) as Endpoint[]).map((e) => ({
  pattern: new RegExp(`^/api/v1${e.path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
  method: e.method,
}));

/** The methods declared for the path (several templates may match it), or null for an unknown path. */
export function v1MethodsFor(pathname: string): string[] | null {
  const methods = ROUTES.filter((r) => r.pattern.test(pathname)).map((r) => r.method);
  return methods.length > 0 ? [...new Set(methods)] : null;
}
