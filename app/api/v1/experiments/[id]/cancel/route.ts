import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { cancelExperiment } from "@/lib/server/services/experiments";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.cancelExperiment, async ({ db, params }) =>
  Response.json(await cancelExperiment(db, params.id)),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
