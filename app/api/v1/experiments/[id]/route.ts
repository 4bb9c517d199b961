import { endpoints } from "@/lib/server/http/api/endpoints";
import { experimentProgressStream } from "@/lib/server/http/api/experiments";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { requireExperiment } from "@/lib/server/services/experiments";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getExperiment, async ({ db, params, request }) => {
  if ((request.headers.get("accept") ?? "").includes("text/event-stream")) {
    return experimentProgressStream(db, params.id, request);
  }
  return Response.json(await requireExperiment(db, params.id));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
