import { importBank } from "@/lib/server/api/banks";
import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importBundle, async ({ db, query, rawBody }) =>
  Response.json(await importBank(db, rawBody, query.replace === "true"), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
