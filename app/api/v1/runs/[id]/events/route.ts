import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { runEventList, runEventStream } from "@/lib/server/http/api/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getRunEvents, async ({ db, params, query, request }) => {
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
    return Response.json(await runEventList(db, params.id, query.after));
  }
  // A reconnecting EventSource sends the last seq it saw; it wins over `?after=`.
  const lastEventId = Number.parseInt(request.headers.get("last-event-id") ?? "", 10);
  return runEventStream(db, params.id, Number.isFinite(lastEventId) ? lastEventId : query.after, request);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
