import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { listBankSuites, saveBankSuite } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listSuites, async ({ db, params }) =>
  Response.json({ suites: await listBankSuites(db, params.bank) }),
);

export const POST = handle(endpoints.createSuite, async ({ db, params, body }) =>
  Response.json(await saveBankSuite(db, { ...body, bankId: params.bank, expectedVersion: 0 }), { status: 201 }),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET", "POST");
