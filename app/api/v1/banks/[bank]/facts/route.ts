import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { retainFacts } from "@/lib/server/retain";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.retainFacts, async ({ db, params, body }) =>
  Response.json(await retainFacts(db, params.bank, body), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
