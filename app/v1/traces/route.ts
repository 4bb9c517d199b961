/** OTLP/HTTP trace receiver (docs/tracing.md#receiving-traces): traces in, imported runs out. */

import { otherMethods } from "@/lib/server/http/api/methods";
import { receiveTraces } from "@/lib/server/http/otlp-receiver";
import { getAppDb } from "@/lib/server/runtime/db";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return receiveTraces(request, getAppDb);
}

// Another method is a 405 naming POST in Allow (Next's own 405 has no Allow header).
export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
