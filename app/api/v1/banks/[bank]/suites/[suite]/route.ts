import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { getSuiteWithHistory, removeSuite, saveBankSuite } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getSuite, async ({ db, params }) =>
  Response.json(await getSuiteWithHistory(db, params.bank, params.suite)),
);

export const PUT = handle(endpoints.updateSuite, async ({ db, params, body }) => {
  await getSuiteWithHistory(db, params.bank, params.suite);
  return Response.json(await saveBankSuite(db, { ...body, bankId: params.bank, name: params.suite }));
});

export const DELETE = handle(endpoints.deleteSuite, async ({ db, params }) => {
  await removeSuite(db, params.bank, params.suite);
  return new Response(null, { status: 204 });
});

export const { POST, PATCH, OPTIONS } = otherMethods("GET", "PUT", "DELETE");
