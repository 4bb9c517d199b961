import { AppError } from "@/lib/contracts/errors";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";
import { getRunOtlp } from "@/lib/server/otlp-push";

export const dynamic = "force-dynamic";

/** The run as an OTLP/JSON trace file (OpenTelemetry GenAI + OpenInference attributes). */
export async function GET(_request: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const trace = await getRunOtlp(await getAppDb(), id);
  if (!trace) return httpError(new AppError("not_found", `unknown run "${id}"`));
  const filename = `run-${id.replace(/[^A-Za-z0-9_-]/g, "_")}.otlp.json`;
  return new Response(`${JSON.stringify(trace, null, 2)}\n`, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });
}
