import { exportBank } from "@/lib/server/http/api/banks";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.exportBundle, async ({ db, params }) =>
  Response.json(await exportBank(db, params.bank), {
    headers: { "content-disposition": `attachment; filename="${params.bank}.bundle.json"` },
  }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
