/** OTLP/HTTP trace receiver (docs/tracing.md#receiving-traces): traces in, imported runs out. */

import { receiveTraces } from "@/lib/server/http/otlp-receiver";
import { getAppDb } from "@/lib/server/runtime/db";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return receiveTraces(request, getAppDb);
}
