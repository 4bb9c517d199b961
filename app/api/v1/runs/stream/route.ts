import { decimalHeader } from "@/lib/contracts/query";
import { RunListStreamQuery } from "@/lib/contracts/runs";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { runListStream } from "@/lib/server/http/api/run-list-stream";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.streamRuns, async ({ db, query, request }) => {
  const { since, ...filter } = query;
  // A reconnecting client sends the last cursor it saw; it wins over `?since=` when it is one
  // (the same bounds as `since`: a header is as untrusted as a query parameter).
  const lastEventId = RunListStreamQuery.shape.since.safeParse(decimalHeader(request.headers.get("last-event-id")));
  return runListStream(db, filter, lastEventId.data ?? since, request);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
