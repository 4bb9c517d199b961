import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { mentalModelDetail, removeMentalModel, updateMentalModel } from "@/lib/server/http/api/mental-models";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.getMentalModel, async ({ db, params }) =>
  Response.json(await mentalModelDetail(db, params.bank, params.id)),
);

export const PUT = handle(endpoints.updateMentalModel, async ({ db, params, body }) =>
  Response.json(await updateMentalModel(db, params.bank, params.id, body)),
);

export const DELETE = handle(endpoints.deleteMentalModel, async ({ db, params }) => {
  await removeMentalModel(db, params.bank, params.id);
  return new Response(null, { status: 204 });
});

export const { POST, PATCH, OPTIONS } = otherMethods("GET", "PUT", "DELETE");
