import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { recall } from "@/lib/server/api/reflect";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.recall, async ({ db, params, body }) =>
  Response.json(await recall(db, params.bank, body)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
