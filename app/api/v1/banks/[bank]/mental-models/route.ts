import { endpoints } from "@/lib/server/http/api/endpoints";
import { handle } from "@/lib/server/http/api/handle";
import { createMentalModel, mentalModelList } from "@/lib/server/http/api/mental-models";
import { otherMethods } from "@/lib/server/http/api/methods";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listMentalModels, async ({ db, params }) =>
  Response.json(await mentalModelList(db, params.bank)),
);

export const POST = handle(endpoints.createMentalModel, async ({ db, params, body }) =>
  Response.json(await createMentalModel(db, params.bank, body), { status: 201 }),
);

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods("GET", "POST");
