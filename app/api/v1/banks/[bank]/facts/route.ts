import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { retainFacts } from "@/lib/server/services/retain";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.retainFacts, async ({ db, params, body }) =>
  Response.json(await retainFacts(db, params.bank, body), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
