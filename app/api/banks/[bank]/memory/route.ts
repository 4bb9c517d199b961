import { AppError } from "@/lib/contracts/errors";
import { MemoryQuery } from "@/lib/contracts/memory";
import { parseQuery } from "@/lib/contracts/query";
import { otherMethods } from "@/lib/server/api/methods";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";
import { browseMemory } from "@/lib/server/memory";

export const dynamic = "force-dynamic";

export async function GET(request: Request, ctx: { params: Promise<{ bank: string }> }) {
  try {
    const { bank } = await ctx.params;
    const query = parseQuery(new URL(request.url).searchParams, MemoryQuery);
    const page = await browseMemory(await getAppDb(), bank, query);
    if (!page) return httpError(new AppError("not_found", `unknown bank "${bank}"`));
    return Response.json(page);
  } catch (err) {
    return httpError(err);
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
