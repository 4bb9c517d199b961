import { importBank } from "@/lib/server/http/api/banks";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importBundle, async ({ db, query, rawBody }) =>
  Response.json(await importBank(db, rawBody, query.replace === "true"), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
