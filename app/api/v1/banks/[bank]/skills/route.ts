import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { createSkill, skillList } from "@/lib/server/http/api/skills";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listSkills, async ({ db, params }) =>
  Response.json(await skillList(db, params.bank)),
);

export const POST = handle(endpoints.createSkill, async ({ db, params, body }) =>
  Response.json(await createSkill(db, params.bank, body), { status: 201 }),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET", "POST");
