/**
 * The methods a route file does not implement. Next answers them with an empty 405 and no `Allow`
 * header; a route file exports these instead, e.g.
 * `export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET")`, so a client gets
 * the error body and the list of methods the path has.
 */
import { AppError } from "@/lib/contracts/errors";
import { httpError } from "../errors";

type RouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Handler = (request: Request) => Response;

/** `Allow` for the implemented methods; Next adds HEAD for GET and OPTIONS by itself. */
export function allowHeader(implemented: readonly RouteMethod[]): string {
  return [...implemented, ...(implemented.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
}

export function otherMethods(...implemented: RouteMethod[]): Record<RouteMethod | "OPTIONS", Handler> {
  const allow = allowHeader(implemented);
  const refuse: Handler = (request) =>
    httpError(
      new AppError("method_not_allowed", `${request.method} is not supported here; this path allows ${allow}.`),
      { headers: { allow } },
    );
  // Ours, not Next's: Next's own OPTIONS would list the refusing handlers below as allowed.
  const options: Handler = () => new Response(null, { status: 204, headers: { allow } });
  return {
    GET: refuse,
    POST: refuse,
    PUT: refuse,
    PATCH: refuse,
    DELETE: refuse,
    OPTIONS: options,
  };
}
