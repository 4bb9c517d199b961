import { endpoints } from "@/lib/server/http/api/endpoints";
import { experimentList, startExperimentFromApi } from "@/lib/server/http/api/experiments";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listExperiments, async ({ db, query }) =>
  Response.json(await experimentList(db, query)),
);

export const POST = handle(endpoints.startExperiment, async ({ db, body }) =>
  Response.json(await startExperimentFromApi(db, body), { status: 202 }),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET", "POST");
