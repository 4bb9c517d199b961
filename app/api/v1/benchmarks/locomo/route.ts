import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { importLocomo } from "@/lib/server/services/benchmarks";

export const dynamic = "force-dynamic";

export const POST = handle(endpoints.importLocomo, async ({ db, query, rawBody }) =>
  Response.json(
    await importLocomo(db, rawBody, {
      prefix: query.prefix ?? "locomo-",
      summaries: query.summaries,
      replace: query.replace === "true",
      minF1: query.minF1 ?? 0.5,
    }),
    { status: 201 },
  ),
);

export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods("POST");
