import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { retainFacts } from "@/lib/server/retain";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.retainFacts, async ({ db, params, body }) =>
  Response.json(await retainFacts(db, params.bank, body), { status: 201 }),
);
