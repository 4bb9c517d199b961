import { otherMethods } from "@/lib/server/http/api/methods";
import { buildOpenApiDocument } from "@/lib/server/http/api/openapi";

export const dynamic = "force-dynamic";

/** Needs no database: the document is generated from the endpoint declarations. */
export function GET() {
  return Response.json(buildOpenApiDocument());
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
