import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { otherMethods } from "@/lib/server/api/methods";
import { runListStream } from "@/lib/server/api/run-list-stream";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.streamRuns, async ({ db, query, request }) => {
  const { since, ...filter } = query;
  // A reconnecting client sends the last cursor it saw; it wins over `?since=`.
  const lastEventId = Number.parseInt(request.headers.get("last-event-id") ?? "", 10);
  return runListStream(db, filter, Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : since, request);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
