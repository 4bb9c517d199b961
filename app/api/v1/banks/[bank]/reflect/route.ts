import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { reflect } from "@/lib/server/http/api/reflect";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.reflect, async ({ db, params, body, request, bank }) => {
  const { status, body: result } = await reflect(db, params.bank, body, { signal: request.signal, bank });
  const self = "links" in result ? result.links.self : undefined;
  return Response.json(result, { status, headers: self ? { location: self } : {} });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
