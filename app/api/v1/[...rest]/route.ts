/**
 * Any /api/v1 path no route declares: the API's JSON error (code `not_found`) rather than the
 * site's HTML 404 page, whatever the method.
 */
import { AppError } from "@/lib/contracts/errors";
import { httpError } from "@/lib/server/http/errors";

export const dynamic = "force-dynamic";

function notFound(request: Request): Response {
  const path = new URL(request.url).pathname;
  return httpError(
    new AppError("not_found", `No API route at ${path}; the routes are listed in /api/v1/openapi.json.`),
  );
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
// Next's own OPTIONS would answer 204 with an Allow listing the methods above for a path that is none.
export const OPTIONS = notFound;
