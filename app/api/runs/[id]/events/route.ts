import { AppError, invalidInput } from "@/lib/contracts/errors";
import { RunEventsQuery } from "@/lib/contracts/runs";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";
import { searchParamsObject } from "@/lib/server/http";
import { getRunEventsAfter } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

/** The run's events after `after` (a seq), with the run's current status, for live following. */
export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const parsed = RunEventsQuery.safeParse(searchParamsObject(request.url));
  if (!parsed.success) return httpError(invalidInput(parsed.error, "Some parameters are invalid."));
  const page = await getRunEventsAfter(await getAppDb(), id, parsed.data.after);
  if (!page) return httpError(new AppError("not_found", `unknown run "${id}"`));
  return Response.json(page);
}
