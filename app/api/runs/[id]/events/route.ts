import { z } from "zod";
import { getAppDb } from "@/lib/server/db";
import { invalidInput, jsonError, searchParamsObject } from "@/lib/server/http";
import { getRunEventsAfter } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

const Query = z.object({ after: z.coerce.number().int().min(-1).optional() });

/** The run's events after `after` (a seq), with the run's current status, for live following. */
export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const parsed = Query.safeParse(searchParamsObject(request.url));
  if (!parsed.success) return invalidInput(parsed.error);
  const page = await getRunEventsAfter(await getAppDb(), id, parsed.data.after);
  if (!page) return jsonError(404, "not_found", `unknown run "${id}"`);
  return Response.json(page);
}
