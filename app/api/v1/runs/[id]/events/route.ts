import { decimalHeader } from "@/lib/contracts/query";
import { RunEventsQuery } from "@/lib/contracts/runs";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { runEventList, runEventStream } from "@/lib/server/http/api/runs";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getRunEvents, async ({ db, params, query, request }) => {
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
    return Response.json(await runEventList(db, params.id, query.after));
  }
  // A reconnecting EventSource sends the last seq it saw; it wins over `?after=` when it is one
  // (the same bounds as `after`: a header is as untrusted as a query parameter; "12abc", "0x10" and
  // "1e3" are none).
  const lastEventId = RunEventsQuery.shape.after.safeParse(decimalHeader(request.headers.get("last-event-id")));
  return runEventStream(db, params.id, lastEventId.data ?? query.after, request);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
