import { AppError, invalidInput } from "@/lib/contracts/errors";
import { MemoryQuery } from "@/lib/contracts/memory";
import { otherMethods } from "@/lib/server/api/methods";
import { getAppDb } from "@/lib/server/db";
import { httpError } from "@/lib/server/errors";
import { searchParamsObject } from "@/lib/server/http";
import { browseMemory } from "@/lib/server/memory";

export const dynamic = "force-dynamic";

export async function GET(request: Request, ctx: { params: Promise<{ bank: string }> }) {
  try {
    const { bank } = await ctx.params;
    const parsed = MemoryQuery.safeParse(searchParamsObject(request.url));
    if (!parsed.success) return httpError(invalidInput(parsed.error, "Some parameters are invalid."));
    const page = await browseMemory(await getAppDb(), bank, parsed.data);
    if (!page) return httpError(new AppError("not_found", `unknown bank "${bank}"`));
    return Response.json(page);
  } catch (err) {
    return httpError(err);
  }
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET");
