import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { getExperimentComparison } from "@/lib/server/services/experiments";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.compareExperiments, async ({ db, query }) =>
  Response.json(await getExperimentComparison(db, query.base, query.head)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
