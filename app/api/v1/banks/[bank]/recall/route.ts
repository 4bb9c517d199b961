import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { recall } from "@/lib/server/http/api/reflect";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.recall, async ({ db, params, body, request }) =>
  Response.json(await recall(db, params.bank, body, request.signal)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
