/** Mental-model CRUD for the API, with optimistic concurrency on `expectedVersion`. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import {
  deleteMentalModel,
  getMentalModel,
  getMentalModelVersions,
  listMentalModels,
  saveMentalModel,
} from "@/db/mental-models";
import { AppError } from "@/lib/contracts/errors";
import type {
  CreateMentalModelBody,
  MentalModelWithHistory,
  UpdateMentalModelBody,
} from "@/lib/contracts/mental-models";

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
  return saveMentalModel(db, { bankId, ...body, expectedVersion: 0 });
}

export async function updateMentalModel(
  db: Db,
  bankId: string,
  id: string,
  body: z.output<typeof UpdateMentalModelBody>,
) {
  const current = await getMentalModel(db, bankId, id);
  if (!current) throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  const { expectedVersion, ...changes } = body;
  const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  return saveMentalModel(db, { ...current, ...defined, bankId, id, expectedVersion });
}

export async function removeMentalModel(db: Db, bankId: string, id: string) {
  if (!(await deleteMentalModel(db, bankId, id))) {
    throw new AppError("not_found", `unknown mental model "${id}" in bank ${bankId}`);
  }
}
