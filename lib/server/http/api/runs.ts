/** Runs for the API: list, detail, and the event log as JSON or as a server-sent event stream. */
import type { Db } from "@/db/client";
import { getLastRunEvent, getRun, getRunEvents, type RunRecord } from "@/db/queries/runs";
import { AppError } from "@/lib/contracts/errors";
import { type RunDetail, type RunEventList, runLinks } from "@/lib/contracts/runs";
import { mentalModelDraftRefs } from "../../services/runs";
import { sseResponse } from "./sse";

export const SSE_POLL_MS = 250;

function toRunDetail(r: RunRecord, probe: RunDetail["probe"]): RunDetail {
  return {
    id: r.id,
    bankId: r.bankId,
    question: r.question,
    skill: r.skillSnapshot
      ? {
          id: r.skillSnapshot.id,
          name: r.skillSnapshot.name,
          version: r.skillSnapshot.version,
          draft: r.skillSnapshot.draft === true,
        }
      : null,
    mentalModelDrafts: mentalModelDraftRefs(r),
    budget: r.budget,
    mode: r.mode,
    scope: r.scope,
    model: { kind: r.modelKind, name: r.modelName },
    status: r.status,
    answer: r.answer,
    citations: r.citations,
    probe,
    dropped: r.dropped,
    flags: r.flags,
    warnings: r.warnings,
    usage: { inputTokens: r.inputTokens, outputTokens: r.outputTokens },
    llmCalls: r.llmCalls,
    modelRequests: r.modelRequests ?? r.llmCalls,
    iterations: r.iterations,
    error: r.error,
    parentRunId: r.parentRunId,
    forkedAtIteration: r.forkedAtIteration,
    createdAt: r.createdAt,
    finishedAt: r.finishedAt,
    durationMs: r.durationMs,
    links: runLinks(r.id),
  };
}

async function requireRun(db: Db, id: string): Promise<RunRecord> {
  const run = await getRun(db, id);
  if (!run) throw new AppError("not_found", `unknown run "${id}"`);
  return run;
}

export async function runDetail(db: Db, id: string) {
  const [run, probe] = await Promise.all([requireRun(db, id), getLastRunEvent(db, id, "probe.finished")]);
  return toRunDetail(run, probe?.payload ?? null);
}

export async function runEventList(db: Db, id: string, after: number | undefined): Promise<RunEventList> {
  const run = await requireRun(db, id);
  return { status: run.status, events: await getRunEvents(db, id, { afterSeq: after }) };
}

/**
 * The run's events as a server-sent event stream: what exists, then new events as the DB gains
 * them (polled every SSE_POLL_MS), until `run.finished` (or the run stopped without one, e.g.
 * interrupted). `after` (from Last-Event-ID on reconnect) skips what the client already has.
 */
export async function runEventStream(db: Db, id: string, after: number | undefined, request: Request) {
  await requireRun(db, id);
  let last = after;
  return sseResponse(
    request,
    async ({ send, signal }) => {
      let first = true;
      while (!signal.aborted) {
        // Status before events: a run that stops after this read still has its events read below.
        const run = await getRun(db, id);
        const events = await getRunEvents(db, id, { afterSeq: last });
        // The response goes out with its first bytes: a client that has every event so far must
        // not wait for the next one (or the keep-alive) to learn that it is connected.
        if (first && events.length === 0 && run?.status === "running") send({ id: last });
        first = false;
        for (const e of events) {
          if (signal.aborted) return;
          send({ id: e.seq, event: e.type, data: e });
          last = e.seq;
          if (e.type === "run.finished") return;
        }
        if (run?.status !== "running") return;
        await new Promise((r) => setTimeout(r, SSE_POLL_MS));
      }
    },
    () => last,
  );
}
