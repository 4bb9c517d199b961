import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { importSuiteJsonl } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importSuite, async ({ db, params, body }) =>
  Response.json(await importSuiteJsonl(db, params.bank, params.suite, body.jsonl)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
