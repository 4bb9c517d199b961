import { endpoints } from "@/lib/server/api/endpoints";
import { handle } from "@/lib/server/api/handle";
import { createMentalModel, mentalModelList } from "@/lib/server/api/mental-models";

export const dynamic = "force-dynamic";

export const GET = handle(endpoints.listMentalModels, async ({ db, params }) =>
  Response.json(await mentalModelList(db, params.bank)),
);

export const POST = handle(endpoints.createMentalModel, async ({ db, params, body }) =>
  Response.json(await createMentalModel(db, params.bank, body), { status: 201 }),
);
