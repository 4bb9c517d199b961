/** OTLP/HTTP trace receiver (docs/tracing.md#receiving-traces): traces in, imported runs out. */
import { getAppDb } from "@/lib/server/db";
import { receiveTraces } from "@/lib/server/otlp-receiver";

export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return receiveTraces(request, getAppDb);
}
