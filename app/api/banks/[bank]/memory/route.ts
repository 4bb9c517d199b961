import { AppError } from "@/lib/contracts/errors";
import { MemoryQuery } from "@/lib/contracts/memory";
import { parseQuery } from "@/lib/contracts/query";
import { otherMethods } from "@/lib/server/http/api/methods";
import { httpError } from "@/lib/server/http/errors";
import { getAppDb } from "@/lib/server/runtime/db";
import { browseMemory } from "@/lib/server/services/memory";

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
