/**
 * Review of issue #31's storage changes in server mode (a real sqld primary and a read replica that
 * forwards writes): a packed run (its events a BLOB, docs/performance.md#stored-bytes-per-run) with
 * hostile text reads back as appended from the primary and from the replica, and a JSONL `--replace`
 * (docs/operations.md#moving-to-a-libsql-server) made through the replica swaps the bank whole for both.
 */
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "@/db/client";
import { storeImportedTrace } from "@/db/queries/imported-runs";
import { createRun, createRunSink, getLastRunEvent, getRun, getRunEvents, packRunEvents } from "@/db/queries/runs";
import { searchFacts } from "@/db/queries/search";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import type { RunEvent } from "@/lib/reflect/events";
import { ensureDemoBank } from "@/lib/server/runtime/db";
import { runOwner } from "@/lib/server/runtime/run-owner";
import { exportBundle, importBundleLines, removeRetiredStorage } from "@/lib/server/services/bundle-io";
import { startRun } from "@/lib/server/services/runs";
import { spansFromOtlpJson, traceToRun } from "@/lib/timeline/otlp-import";
import { GENAI_TRACE_ID, genAiTrace } from "@/test/fixtures/otlp/traces";
import { done, followForced, reply, ScriptedModel } from "../../fixtures/scripted-model";
import { eventually, type SqldNode, skipSqld, startSqldPrimary, startSqldReplica } from "./sqld-server";

const HOSTILE = `lone \ud800 and \udfff, NUL \u0000, 🧪👩‍👩‍👧, RTL \u202eשלום\u202c, "q" \\ ${"é".repeat(50)}`;

function hostileRun(runId: string): RunEvent[] {
  const system = { role: "system", content: "You answer from memory." };
  const user = { role: "user", content: HOSTILE };
  const big = `${HOSTILE} ${"x".repeat(300_000)}`;
  return [
    {
      runId,
      seq: 0,
      at: 1,
      type: "llm.request",
      iteration: 0,
      payload: { messages: [system, user], tools: ["recall"], toolChoice: { type: "auto" }, injections: [] },
    },
    {
      runId,
      seq: 1,
      at: 2,
      type: "tool.call",
      iteration: 0,
      payload: { callId: "c1", tool: "recall", tier: null, query: HOSTILE, reason: null, args: { q: HOSTILE } },
    },
    {
      runId,
      seq: 2,
      at: 3,
      type: "llm.request",
      iteration: 1,
      payload: {
        messages: [system, user, { role: "tool", tool_call_id: "c1", content: big }],
        tools: ["recall"],
        toolChoice: { type: "auto" },
        injections: [],
      },
    },
  ] as unknown as RunEvent[];
}

async function* bankLines(word: string, facts: number) {
  yield JSON.stringify({ version: 1, bank: { id: "swapped", name: word, permittedTeams: [] } });
  for (let i = 0; i < facts; i++)
    yield JSON.stringify({
      fact: {
        id: `f${i}`,
        text: `The ${word} review ${i} moved.`,
        kind: "world",
        tags: [],
        scope: "personal",
        recordedAt: "2026-01-01T00:00:00Z",
      },
    });
}

describe.skipIf(skipSqld)("packed runs and the storage-key swap on a libSQL server and its replica", () => {
  let primary: SqldNode | undefined;
  let replica: SqldNode | undefined;
  let db: Db;
  let rdb: Db;

  beforeAll(async () => {
    primary = await startSqldPrimary();
    replica = await startSqldReplica(primary);
    db = await openDb(primary.url);
    await ensureDemoBank(db);
    const replicaUrl = replica.url;
    // The replica must have the migrated schema before the app opens it, or it would migrate again.
    await eventually(async () => {
      const c = createClient({ url: replicaUrl });
      try {
        const res = await c.execute("SELECT count(*) AS n FROM banks");
        return Number(res.rows[0]?.n) >= 1;
      } catch {
        return false;
      } finally {
        c.close();
      }
    }, "the replica to receive the schema and the demo bank");
    rdb = await openDb(replicaUrl);
  }, 60_000);

  afterAll(async () => {
    rdb?.$client.close();
    db?.$client.close();
    await replica?.stop();
    await primary?.stop();
  });

  it("a run with hostile text, packed on the server, reads back as appended on the primary and the replica", async () => {
    const runId = "run_hostile_sqld";
    const events = hostileRun(runId);
    await createRun(db, {
      id: runId,
      bankId: "demo",
      // Text a libSQL server's protocol carries (a lone surrogate cannot be sent as a column value).
      question: "What did 🧪 \u202eשלום\u202c say?",
      skill: null,
      budget: "low",
      mode: "synthesize",
      scope: "personal",
      model: { kind: "offline", name: "offline" },
    });
    const sink = createRunSink(db, runId);
    for (const e of events) await sink.append(e);
    await sink.flush();
    const appended = JSON.stringify(events);
    expect(JSON.stringify(await getRunEvents(db, runId))).toBe(appended);
    await db.$client.execute({ sql: "UPDATE runs SET status = 'done' WHERE id = ?", args: [runId] });
    expect((await packRunEvents(db, runId)).events).toBe(events.length);
    const stored = await db.$client.execute({
      sql: "SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1) AS rows, (SELECT count(*) FROM run_event_packs WHERE run_id = ?1) AS packs",
      args: [runId],
    });
    expect(stored.rows[0]).toMatchObject({ rows: 0 });
    expect(Number(stored.rows[0]?.packs)).toBeGreaterThan(0);

    expect(JSON.stringify(await getRunEvents(db, runId))).toBe(appended);
    expect(JSON.stringify(await getRunEvents(db, runId, { afterSeq: 1 }))).toBe(JSON.stringify(events.slice(2)));
    expect(JSON.stringify(await getLastRunEvent(db, runId, "llm.request"))).toBe(JSON.stringify(events[2]));
    await eventually(async () => {
      const packs = await rdb.$client.execute({
        sql: "SELECT count(*) AS n FROM run_event_packs WHERE run_id = ?",
        args: [runId],
      });
      return Number(packs.rows[0]?.n) > 0;
    }, "the replica to receive the packs");
    expect(JSON.stringify(await getRunEvents(rdb, runId))).toBe(appended);
    expect(JSON.stringify(await getRunEvents(rdb, runId, { afterSeq: 0, limit: 1 }))).toBe(
      JSON.stringify(events.slice(1, 2)),
    );
  }, 60_000);

  it("a model whose answer and searches hold a lone surrogate, NUL and RTL: the run finishes, packed, readable", async () => {
    const model = new ScriptedModel(followForced(`SSO ${HOSTILE}`, () => reply(done(`Answer: ${HOSTILE}`))));
    const { runId, finished } = await startRun(
      db,
      { mode: "synthesize", bankId: "demo", skill: "blockers", question: "What is blocking the SSO rollout?" },
      { model },
    );
    const result = await finished;
    expect(["done", "degraded"]).toContain(result.status);
    const run = await getRun(db, runId);
    expect(run?.status).toBe(result.status);
    // Stored as a local file stores it: the lone surrogates as U+FFFD, the rest as written.
    expect(run?.answer).toContain("lone \ufffd and \ufffd, NUL \u0000, 🧪");
    const events = await getRunEvents(db, runId);
    expect(events.at(-1)?.type).toBe("run.finished");
    expect(JSON.stringify(events)).toContain("\\u0000");
    const stored = await db.$client.execute({
      sql: "SELECT (SELECT count(*) FROM run_events WHERE run_id = ?1) AS rows, (SELECT sum(events) FROM run_event_packs WHERE run_id = ?1) AS packed",
      args: [runId],
    });
    expect(stored.rows[0]).toMatchObject({ rows: 0, packed: events.length });
  }, 60_000);

  it("an OTLP trace whose question and answer hold lone surrogates is stored (as U+FFFD), not refused by the server", async () => {
    // The receiver cannot refuse it as invalid text: an exporter sends what its agent saw.
    const body = JSON.parse(
      JSON.stringify(genAiTrace())
        .replaceAll("Where does Ana work?", "Where does Ana work\\ud800?")
        .replaceAll("Ana works at Globex.", "Ana works \\udfff at Globex."),
    );
    const { spans } = spansFromOtlpJson(body);
    const stored = await storeImportedTrace(db, GENAI_TRACE_ID, spans, traceToRun);
    const run = await getRun(db, stored.runId);
    expect(run?.question).toBe("Where does Ana work\ufffd?");
    expect(run?.answer).toBe("Ana works \ufffd at Globex.");
    // Its events hold the same valid text: the import makes a lone surrogate U+FFFD before it
    // stores anything (docs/tracing.md#receiving-traces), so the run's page can render it.
    const events = JSON.stringify(await getRunEvents(db, stored.runId));
    expect(events).toContain("work\ufffd?");
    expect(events).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
  }, 60_000);

  it("a JSONL replace made through the replica swaps the bank whole for the primary and the replica", async () => {
    const ownerId = await runOwner(db);
    await importBundleLines(rdb, bankLines("quokka", 150), { ownerId, rowsPerCommit: 40 });
    // A replica applies the primary's log a moment later: the import is visible there once it has.
    await eventually(async () => (await exportBundle(rdb, "swapped")) !== null, "the replica to see the import");
    // Term statistics read before the replace (their vocab tables made then) are not stale after it.
    for (const reader of [db, rdb])
      expect((await termDocumentFrequencies(reader, "swapped", ["quokka"])).frequencies.get("quokka")).toBe(150);
    await importBundleLines(rdb, bankLines("wombat", 130), { replace: true, ownerId, rowsPerCommit: 40 });
    const q = { bankId: "swapped", limit: 5, tags: [], scopes: ["personal" as const] };
    for (const reader of [db, rdb]) {
      await eventually(
        async () => (await searchFacts(reader, { ...q, query: "wombat" })).length === 5,
        "the replaced bank to be searched",
      );
      expect(await searchFacts(reader, { ...q, query: "quokka" })).toEqual([]);
      const bundle = await exportBundle(reader, "swapped");
      expect(bundle?.bank.name).toBe("wombat");
      expect(bundle?.facts).toHaveLength(130);
      expect(bundle?.facts.every((f) => f.text.includes("wombat"))).toBe(true);
      // The offline model's term statistics (vocab tables in the connection's temp schema).
      const terms = await termDocumentFrequencies(reader, "swapped", ["wombat", "quokka", "review"]);
      expect(terms.documents).toBe(130);
      expect(Object.fromEntries(terms.frequencies)).toEqual({ wombat: 130, review: 130 });
    }
    // A process opening the database later (its index upkeep drops in-file vocab tables of the
    // earlier release) still reads them: they are made again on use.
    const later = await openDb(primary!.url);
    try {
      const terms = await termDocumentFrequencies(later, "swapped", ["wombat"]);
      expect(terms.frequencies.get("wombat")).toBe(130);
    } finally {
      later.$client.close();
    }
    // The old rows go right after the swap, or with the next sweep: through a replica, the removal
    // right after the swap has at times (about 1 run in 20, in full suites) found nothing retired
    // yet, leaving all 150 for the sweep (docs/operations.md#moving-to-a-libsql-server). The sweep's own step:
    await removeRetiredStorage(db, { indexes: true });
    const left = await db.$client.execute(
      "SELECT count(*) AS n FROM facts WHERE bank_id NOT IN ((SELECT storage_id FROM banks WHERE id = 'swapped'), 'demo')",
    );
    expect(Number(left.rows[0]?.n)).toBe(0);
    // The old indexes (renamed `~import-…~replaced` at the swap; "~" is 7e in hex) are gone too.
    const retired = await db.$client.execute(
      "SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'facts\\_fts\\_7e%' ESCAPE '\\'",
    );
    expect(Number(retired.rows[0]?.n)).toBe(0);
  }, 120_000);
});
