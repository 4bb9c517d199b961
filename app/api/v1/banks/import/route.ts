import { importBank } from "@/lib/server/api/banks";
import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importBundle, async ({ db, query, rawBody }) =>
  Response.json(await importBank(db, rawBody, query.replace === "true"), { status: 201 }),
);
