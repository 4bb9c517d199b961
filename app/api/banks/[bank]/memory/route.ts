import { getAppDb } from "@/lib/server/db";
import { invalidInput, jsonError, searchParamsObject } from "@/lib/server/http";
import { browseMemory, MemoryQuery } from "@/lib/server/memory";

export const dynamic = "force-dynamic";

export async function GET(request: Request, ctx: { params: Promise<{ bank: string }> }) {
  const { bank } = await ctx.params;
  const parsed = MemoryQuery.safeParse(searchParamsObject(request.url));
  if (!parsed.success) return invalidInput(parsed.error);
  const page = await browseMemory(await getAppDb(), bank, parsed.data);
  if (!page) return jsonError(404, "not_found", `unknown bank "${bank}"`);
  return Response.json(page);
}
