import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { exportSuiteJsonl } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export const GET = handle(
  endpoints.exportSuite,
  async ({ db, params }) =>
    new Response(await exportSuiteJsonl(db, params.bank, params.suite), {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${params.suite}.jsonl"`,
      },
    }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
