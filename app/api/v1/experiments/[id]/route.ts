import { endpoints } from "@/lib/server/api/endpoints";
import { experimentProgressStream } from "@/lib/server/api/experiments";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { requireExperiment } from "@/lib/server/experiments";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getExperiment, async ({ db, params, request }) => {
  if ((request.headers.get("accept") ?? "").includes("text/event-stream")) {
    return experimentProgressStream(db, params.id, request);
  }
  return Response.json(await requireExperiment(db, params.id));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
