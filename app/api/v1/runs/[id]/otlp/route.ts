import { AppError } from "@/lib/contracts/errors";
import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { getRunOtlp } from "@/lib/server/services/otlp-push";

export const dynamic = "force-dynamic";

/** The run as an OTLP/JSON trace file (OpenTelemetry GenAI + OpenInference attributes). */
export const GET = handle(endpoints.getRunOtlp, async ({ db, params }) => {
  const trace = await getRunOtlp(db, params.id);
  if (!trace) throw new AppError("not_found", `unknown run "${params.id}"`);
  const filename = `run-${params.id.replace(/[^A-Za-z0-9_-]/g, "_")}.otlp.json`;
  return new Response(`${JSON.stringify(trace, null, 2)}\n`, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
