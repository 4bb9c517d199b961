import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { otherMethods } from "@/lib/server/http/api/methods";
import { removeSkill, skillDetail, updateSkill } from "@/lib/server/http/api/skills";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getSkill, async ({ db, params }) =>
  Response.json(await skillDetail(db, params.bank, params.id)),
);

export const PUT = handle(endpoints.updateSkill, async ({ db, params, body }) =>
  Response.json(await updateSkill(db, params.bank, params.id, body)),
);

export const DELETE = handle(endpoints.deleteSkill, async ({ db, params }) => {
  await removeSkill(db, params.bank, params.id);
  return new Response(null, { status: 204 });
});

export const { POST, PATCH, OPTIONS } = otherMethods("GET", "PUT", "DELETE");
