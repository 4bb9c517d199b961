/**
 * Mental-model CRUD for the API: translates path and body into the one service per operation
 * (lib/server/services/mental-models.ts), the same the editor's actions call.
 */
import type { z } from "zod";
import type { Db } from "@/db/client";
import type { CreateMentalModelBody, UpdateMentalModelBody } from "@/lib/contracts/mental-models";
import { createMentalModelRecord, deleteMentalModelById, updateMentalModelFields } from "../../services/mental-models";

export { mentalModelDetail, mentalModelList } from "../../services/mental-models";

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
  await deleteMentalModelById(db, { bankId, id });
}
