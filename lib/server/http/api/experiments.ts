/** Suites and experiments for the API: thin adapters over lib/server/services/{suites,experiments}.ts. */
import type { z } from "zod";
import type { Db } from "@/db/client";
import { type ListExperimentsQuery, type StartExperimentBody, StartExperimentInput } from "@/lib/contracts/experiments";
import { requireBank } from "../../services/banks";
import {
  getExperiment,
  listExperiments,
  progressOf,
  requireExperiment,
  startExperiment,
} from "../../services/experiments";
import { SSE_POLL_MS } from "./runs";
import { sseResponse } from "./sse";

export async function experimentList(db: Db, query: z.output<typeof ListExperimentsQuery>) {
  await requireBank(db, query.bank);
  return { experiments: await listExperiments(db, { bankId: query.bank, suite: query.suite, limit: query.limit }) };
}

export async function startExperimentFromApi(db: Db, body: z.output<typeof StartExperimentBody>) {
  const { bank, ...rest } = body;
  const { experimentId } = await startExperiment(db, StartExperimentInput.parse({ ...rest, bankId: bank }));
  return requireExperiment(db, experimentId);
}

/** Progress frames until the experiment ends (read from the database, so any process's experiment). */
export async function experimentProgressStream(db: Db, id: string, request: Request) {
  await requireExperiment(db, id);
  let seq = 0;
  return sseResponse(
    request,
    async ({ send, signal }) => {
      let last = "";
      while (!signal.aborted) {
        const e = await getExperiment(db, id);
        if (!e) return;
        const frame = progressOf(e);
        const key = JSON.stringify(frame);
        if (key !== last) {
          send({ id: ++seq, event: "progress", data: frame });
          last = key;
        }
        if (e.status !== "running") return;
        await new Promise((r) => setTimeout(r, SSE_POLL_MS));
      }
    },
    () => seq,
  );
}
