/** Mental-model CRUD for the API, with optimistic concurrency on `expectedVersion`. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import {
  deleteMentalModel,
  getMentalModel,
  getMentalModelVersions,
  listMentalModels,
} from "@/db/queries/mental-models";
import { AppError } from "@/lib/contracts/errors";
import type {
  CreateMentalModelBody,
  MentalModelWithHistory,
  UpdateMentalModelBody,
} from "@/lib/contracts/mental-models";
import { createMentalModelRecord, updateMentalModelFields } from "../../services/mental-models";

export async function mentalModelList(db: Db, bankId: string) {
  return { mentalModels: await listMentalModels(db, bankId) };
}

export async function mentalModelDetail(db: Db, bankId: string, id: string) {
  const mentalModel = await getMentalModel(db, bankId, id);
  if (!mentalModel) throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  const versions = (await getMentalModelVersions(db, bankId, id)).map(
    ({ bankId: _bank, modelId: _model, ...version }) => version,
  );
  const detail: MentalModelWithHistory = { mentalModel, versions };
  return detail;
}

export async function createMentalModel(db: Db, bankId: string, body: z.output<typeof CreateMentalModelBody>) {
  return createMentalModelRecord(db, { bankId, ...body });
}

/** PUT: the editor's service; the fields the body omits keep their value. */
export async function updateMentalModel(
  db: Db,
  bankId: string,
  id: string,
  { expectedVersion, ...changes }: z.output<typeof UpdateMentalModelBody>,
) {
  return updateMentalModelFields(db, { bankId, id, expectedVersion, changes });
}

export async function removeMentalModel(db: Db, bankId: string, id: string) {
  if (!(await deleteMentalModel(db, bankId, id))) {
    throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  }
}
