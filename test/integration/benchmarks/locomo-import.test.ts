/**
 * LoCoMo imported as banks and suites (lib/server/services/benchmarks.ts) over a real libSQL file, from the
 * hand-written LoCoMo-shaped fixture: what is made, what is reported, what is refused, and an
 * experiment on the imported suite saying why a question failed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBank } from "@/db/queries/banks";
import { getRun } from "@/db/queries/runs";
import { getSuite } from "@/db/queries/suites";
import { isAppError } from "@/lib/contracts/errors";
import { importLocomo } from "@/lib/server/services/benchmarks";
import { startExperiment } from "@/lib/server/services/experiments";
import { MINI_LOCOMO } from "@/test/fixtures/locomo/mini";
import { openTempDb } from "../db/temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
const options = { prefix: "locomo-", replace: false, minF1: 0.5 };

beforeAll(async () => {
  t = await openTempDb("locomo-import");
});
afterAll(() => t.cleanup());

describe("bench import locomo", () => {
  it("makes a bank per conversation with the qa skill and a suite of every question, reporting each repair", async () => {
    const result = await importLocomo(t.db, MINI_LOCOMO, options);
    expect(result.banks).toEqual([
      {
        bankId: "locomo-mini-1",
        counts: { facts: 9, observations: 4, mentalModels: 0, skills: 1, suites: 1 },
        suite: "locomo-mini-1",
      },
    ]);
    expect(result.repairs.count).toBe(5);
    expect(result.repairs.byAction).toEqual({ split: 2, fixed: 1, dropped: 2 });
    expect(result.repairs.examples[0]?.path).toMatch(/^mini-1 /);

    const suite = await getSuite(t.db, "locomo-mini-1", "locomo-mini-1");
    expect(suite?.questions).toHaveLength(6);
    const [temporal, multiHop, , openDomain, adversarial] = suite!.questions;
    expect(temporal).toMatchObject({
      skill: "qa",
      tags: ["temporal"],
      expect: { answer: "31 December 2023", minF1: 0.5, mustCiteAny: ["D1:2"] },
    });
    expect(multiHop?.tags).toEqual(["multi-hop"]);
    expect(openDomain?.expect?.answer).toBe("2");
    expect(adversarial).toMatchObject({ tags: ["adversarial"], expect: { abstains: true } });
  });

  it("refuses an existing bank without replace and imports nothing; with replace, replaces it", async () => {
    const two = [MINI_LOCOMO[0], { ...MINI_LOCOMO[0], sample_id: "mini-2" }];
    const err = await importLocomo(t.db, two, options).catch((e: unknown) => e);
    expect(isAppError(err, "conflict")).toBe(true);
    expect((err as Error).message).toMatch(/bank locomo-mini-1 already exists.*Nothing was imported/);
    // mini-2 comes after the existing bank in the file, and was not made either.
    expect(await getBank(t.db, "locomo-mini-2")).toBeNull();
    const replaced = await importLocomo(t.db, two, { ...options, replace: true });
    expect(replaced.banks.map((b) => b.bankId)).toEqual(["locomo-mini-1", "locomo-mini-2"]);
  });

  it("adds the session summaries as fresh mental models when asked", async () => {
    const result = await importLocomo(t.db, MINI_LOCOMO, { ...options, prefix: "fresh-", summaries: "fresh" });
    expect(result.banks[0]?.counts.mentalModels).toBe(2);
  });

  it("names the path and quotes the value of a file that is not LoCoMo's shape", async () => {
    const bad = structuredClone(MINI_LOCOMO) as unknown as { qa: { category: unknown }[] }[];
    bad[0]!.qa[2]!.category = 7;
    const err = await importLocomo(t.db, bad, { ...options, prefix: "bad-" }).catch((e: unknown) => e);
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect((err as Error).message).toMatch(
      /^not a LoCoMo file, nothing was imported: \[0\]\.qa\[2\]\.category: .+ \(got 7\)$/,
    );
    expect(await getBank(t.db, "bad-mini-1")).toBeNull();
  });

  it("refuses a file whose third conversation has an unreadable turn, and imports none of the three", async () => {
    const three = ["atom-1", "atom-2", "atom-3"].map((id) =>
      structuredClone({ ...MINI_LOCOMO[0], sample_id: id }),
    ) as unknown as { conversation: Record<string, unknown[]> }[];
    three[2]!.conversation.session_2![1] = null;
    const err = await importLocomo(t.db, three, options).catch((e: unknown) => e);
    expect(isAppError(err, "invalid_input")).toBe(true);
    expect((err as Error).message).toMatch(
      /^not a LoCoMo file, nothing was imported: \[2\]\.conversation\.session_2\[1\]: .+\(got null\)$/,
    );
    for (const id of ["atom-1", "atom-2", "atom-3"]) expect(await getBank(t.db, `locomo-${id}`)).toBeNull();
    const notTurns = structuredClone(three);
    (notTurns[2]!.conversation as Record<string, unknown>).session_2 = "oops";
    const err2 = await importLocomo(t.db, notTurns, options).catch((e: unknown) => e);
    expect((err2 as Error).message).toMatch(/\[2\]\.conversation\.session_2: .+\(got "oops"\)$/);
  });

  it("reports every turn, date and observation it drops: a repeated id, an empty turn, 31 February", async () => {
    const odd = structuredClone({ ...MINI_LOCOMO[0], sample_id: "odd" }) as unknown as {
      conversation: Record<string, unknown>;
      observation: Record<string, Record<string, unknown[]>>;
    };
    const session1 = odd.conversation.session_1 as { speaker: string; dia_id: string; text: string }[];
    session1.push({ speaker: "Ben", dia_id: "D1:2", text: "A second D1:2 that must not vanish silently." });
    session1.push({ speaker: "Ana", dia_id: "D1:9", text: "   " });
    odd.conversation.session_3_date_time = "11:05 am on 31 February, 2024";
    odd.observation.session_2_observation!.Ana!.push(["", "D2:2"], ["Ana cites a turn of no one.", "D9:9"]);
    const result = await importLocomo(t.db, [odd], { ...options, prefix: "odd-" });
    const said = result.repairs.examples.map((r) => `${r.path} ${r.value} ${r.action}: ${r.detail}`);
    expect(said).toEqual(
      expect.arrayContaining([
        "odd conversation.session_1[4] D1:2 dropped: a second turn with this id; the first is kept",
        "odd conversation.session_1[5] D1:9 dropped: the turn has no text",
        "odd conversation.session_3_date_time 11:05 am on 31 February, 2024 dropped: not a date this importer reads; the session's turns are undated",
        "odd observation.session_2_observation.Ana[1]  dropped: the observation has no text",
        "odd observation.session_2_observation.Ana[2] Ana cites a turn of no one. dropped: the observation cites no turn of this conversation",
      ]),
    );
    // Every dropped item is counted: nothing the file held went missing without a line.
    expect(result.repairs.count).toBe(result.repairs.examples.length);
  });

  it("makes a bank id of any sample id and refuses a prefix a bank id cannot start with", async () => {
    const odd = [structuredClone({ ...MINI_LOCOMO[0], sample_id: "Conv.7:B" })];
    const result = await importLocomo(t.db, odd, { ...options, prefix: "" });
    expect(result.banks[0]?.bankId).toBe("conv-7-b");
    const { LocomoImportOptions } = await import("@/lib/contracts/benchmarks");
    expect(LocomoImportOptions.safeParse({ prefix: "LC." }).success).toBe(false);
    expect(LocomoImportOptions.safeParse({ prefix: "lc_2-" }).success).toBe(true);
  });

  it("an experiment on the imported suite says why a question failed and where its evidence was", async () => {
    const { finished } = await startExperiment(t.db, {
      bankId: "locomo-mini-1",
      suite: "locomo-mini-1",
      config: { mentalModels: [] },
      allowIncompleteBaseline: false,
      concurrency: 2,
    });
    const experiment = await finished;
    expect(experiment.status).toBe("done");
    expect(experiment.totals.finished).toBe(6);
    const details = experiment.rows.flatMap((r) => r.failures.map((f) => `${f.expectation}: ${f.detail}`));
    // "Where does Ana work?": the reader answers from the observation "Ana works at a bakery" and
    // cites the turn behind it, one of the evidence turns (mustCiteAny).
    const ana = experiment.rows.find((r) => r.question === "Where does Ana work?");
    expect(ana?.passed).toBe(true);
    expect(ana?.citations.some((id) => id === "D2:2" || id === "D3:1")).toBe(true);
    // What each run retrieved is recorded (ids and best rank, read from its tool results): every
    // id a run cited was retrieved, at a rank.
    for (const row of experiment.rows) {
      const retrieved = (await getRun(t.db, row.runId ?? ""))?.retrieved ?? [];
      expect(retrieved.length).toBeGreaterThan(0);
      for (const id of row.citations) expect(retrieved.find((r) => r.id === id)?.rank).toBeGreaterThan(0);
    }
    expect(
      details.some((d) => /^minF1: F1 \d\.\d\d of the first line ".+" against ".+", at least 0\.5 expected$/.test(d)),
    ).toBe(true);
    // The adversarial question is declined by the offline reader.
    const adversarial = experiment.rows.find((r) => r.question === "What did Ana name her puppy?");
    expect(adversarial?.passed).toBe(true);
  });
});
