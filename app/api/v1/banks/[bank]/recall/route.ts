import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { recall } from "@/lib/server/api/reflect";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.recall, async ({ db, params, body }) =>
  Response.json(await recall(db, params.bank, body)),
);
