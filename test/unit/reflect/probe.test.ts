/**
 * The missed-evidence probe (docs/engine.md#the-missed-evidence-probe): what it searches, what it drops, what "strong" means, the
 * negative-answer detector, and its wiring into the run (event, result, flag, no model call).
 */
import { describe, expect, it } from "vitest";
import { NO_EVIDENCE_ANSWER } from "@/lib/reflect/digest";
import type { RunFlag, Tier } from "@/lib/reflect/domain";
import { runReflect } from "@/lib/reflect/engine";
import { NothingToSearchError } from "@/lib/reflect/errors";
import { Evidence } from "@/lib/reflect/evidence";
import type { FactHit, MemoryPort } from "@/lib/reflect/ports";
import {
  isNegativeAnswer,
  isStrongMatch,
  isStrongRank,
  PROBE_MAX_QUERIES,
  PROBE_SEARCH_LIMIT,
  PROBE_TOP_K,
  type ProbeInput,
  probe,
  probeHitsOf,
  probeQueries,
  STRONG_RANK,
  sameAsProbeSearch,
  saysNothingFound,
  searchKey,
  seenInFull,
} from "@/lib/reflect/probe";
import { fact, InMemoryMemory, mentalModel, observation } from "@/test/fixtures/in-memory-memory";
import { call, done, forcedTool, reply, ScriptedModel } from "@/test/fixtures/scripted-model";
import { ATLAS_FACTS, ATLAS_OBSERVATIONS, fixedClock, harness, ofType, request, run, SKILL } from "./harness";

function input(memory: MemoryPort, overrides: Partial<ProbeInput> = {}): ProbeInput {
  return {
    memory,
    clock: fixedClock(),
    bankId: "bank",
    scope: "personal",
    tags: [],
    enabledTiers: ["observations", "raw_facts"],
    question: "When is the Atlas launch?",
    modelQueries: [],
    evidence: new Evidence(),
    ...overrides,
  };
}

const ids = (r: { hits: { id: string }[] }) => r.hits.map((h) => h.id);

describe("probe: what it searches and keeps", () => {
  it("skips a search with nothing to search for without calling it a failure", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    // A store without semantic search refuses a query of only common words (db/queries/memory-store.ts).
    const refusing: MemoryPort = {
      ...memory,
      countInScope: (q) => memory.countInScope(q),
      countMentalModels: () => memory.countMentalModels(),
      permitsScope: (q) => memory.permitsScope(q),
      searchMentalModels: (q) => memory.searchMentalModels(q),
      searchObservations: (q) =>
        q.query.includes("what is it")
          ? Promise.reject(new NothingToSearchError(q.query))
          : memory.searchObservations(q),
      recall: (q) =>
        q.query.includes("what is it") ? Promise.reject(new NothingToSearchError(q.query)) : memory.recall(q),
    };
    const result = await probe(input(refusing, { modelQueries: ["what is it"] }));
    expect(result.errors).toEqual([]);
    expect(ids(result)).toEqual(expect.arrayContaining(["o1", "f2"]));
    // Any other failure is still named.
    const failing: MemoryPort = { ...refusing, recall: () => Promise.reject(new Error("disk I/O error")) };
    expect((await probe(input(failing))).errors).toEqual([expect.stringContaining("disk I/O error")]);
  });

  it("drops every id the run retrieved, per tier", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const evidence = new Evidence();
    evidence.add({ tier: "raw_facts", hits: [ATLAS_FACTS[0]!] });
    const result = await probe(input(memory, { evidence }));
    expect(ids(result)).not.toContain("f1");
    expect(ids(result)).toEqual(expect.arrayContaining(["o1", "f2"]));
    // Only the tier it was retrieved from counts: an observation with f1's id would still show.
    const sameIdOtherTier = new InMemoryMemory({
      facts: ATLAS_FACTS,
      observations: [observation("f1", "The Atlas launch date is March 14.")],
    });
    expect((await probe(input(sameIdOtherTier, { evidence }))).hits).toContainEqual(
      expect.objectContaining({ id: "f1", tier: "observations" }),
    );
  });

  it("never returns a team memory the run's scope cannot read", async () => {
    const teamFact = fact("ft", "Atlas launch war room is booked for the team.", { scope: "team:ops" });
    const facts = [teamFact, ...ATLAS_FACTS];
    const personal = await probe(input(new InMemoryMemory({ facts, permittedTeams: ["ops"] })));
    expect(ids(personal)).not.toContain("ft");
    // A team the bank does not permit: the searches are refused, named in errors, and nothing leaks.
    const refused = await probe(input(new InMemoryMemory({ facts }), { scope: "team:ops" }));
    expect(ids(refused)).toEqual([]);
    expect(refused.errors.join("\n")).toMatch(/raw_facts search for "When is the Atlas launch\?" failed/);
    // The same team, permitted: the run could read it, so the probe may show it.
    const permitted = await probe(input(new InMemoryMemory({ facts, permittedTeams: ["ops"] }), { scope: "team:ops" }));
    expect(ids(permitted)).toContain("ft");
  });

  it("applies the skill's tags like the run's searches (not to mental models)", async () => {
    const memory = new InMemoryMemory({
      facts: [
        fact("f1", "Atlas launch decided for March 14.", { tags: ["decision"] }),
        fact("f2", "Atlas launch party."),
      ],
      mentalModels: [mentalModel("mm1", "Atlas launch", "Atlas launches on March 14.")],
    });
    const result = await probe(
      input(memory, { tags: ["decision"], enabledTiers: ["mental_models", "observations", "raw_facts"] }),
    );
    expect(ids(result).sort()).toEqual(["f1", "mm1"]);
    expect(memory.probeSearches.map((s) => [s.method, s.query.tags])).toEqual([
      ["searchMentalModels", []],
      ["searchObservations", ["decision"]],
      ["recall", ["decision"]],
    ]);
  });

  it("searches only the run's enabled tiers, marks its searches as the probe's, and keeps the top K", async () => {
    const facts = Array.from({ length: 12 }, (_, i) => fact(`f${i}`, `Atlas launch note ${i}`));
    const memory = new InMemoryMemory({ facts, observations: ATLAS_OBSERVATIONS });
    const result = await probe(input(memory, { enabledTiers: ["raw_facts"] }));
    expect(result.hits).toHaveLength(PROBE_TOP_K);
    expect(result.hits.every((h) => h.tier === "raw_facts")).toBe(true);
    expect(result.hits.map((h) => h.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(memory.searches).toEqual([]);
    expect(memory.probeSearches.every((s) => s.query.probe === true)).toBe(true);
  });

  it("searches the question first, then each distinct model query, up to the cap", () => {
    const model = ["Atlas", " atlas ", "ATLAS", "", ...Array.from({ length: 10 }, (_, i) => `query ${i}`)];
    const { queries, skipped } = probeQueries("When is the Atlas launch?", model);
    expect(queries).toHaveLength(PROBE_MAX_QUERIES);
    expect(queries.slice(0, 3)).toEqual(["When is the Atlas launch?", "Atlas", "query 0"]);
    expect(skipped).toBe(1 + 10 - (PROBE_MAX_QUERIES - 1));
  });

  it("drops a question or query with nothing to search for, before the cap", () => {
    const model = ["what is it?", "🚀", ...Array.from({ length: PROBE_MAX_QUERIES - 1 }, (_, i) => `query ${i}`)];
    const { queries, skipped } = probeQueries("What is it?", model);
    expect(queries).toEqual(Array.from({ length: PROBE_MAX_QUERIES - 1 }, (_, i) => `query ${i}`));
    expect(skipped).toBe(0);
  });

  it("names the query that ranked a hit best, with its per-search rank and the store's score", async () => {
    const hit = (id: string, rank: number): FactHit => ({ ...fact(id, `text of ${id}`), rank, score: 10 - rank });
    const memory = portReturning({ "When is the Atlas launch?": [hit("a", 1), hit("b", 2)], "b first": [hit("b", 1)] });
    const result = await probe(input(memory, { enabledTiers: ["raw_facts"], modelQueries: ["b first"] }));
    expect(result.hits[0]).toMatchObject({ id: "b", bestRank: 1, query: "b first", searchScore: 9, rank: 1 });
    expect(result.hits[1]).toMatchObject({ id: "a", bestRank: 1, query: "When is the Atlas launch?" });
  });

  it("a search that fails is named and the other searches still count; the probe never throws", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const failing: MemoryPort = {
      ...bind(memory),
      recall: async () => {
        throw new Error("database is locked");
      },
    };
    const result = await probe(input(failing));
    expect(result.errors).toEqual([`raw_facts search for "When is the Atlas launch?" failed: database is locked`]);
    expect(ids(result)).toEqual(["o1"]);
  });
});

describe("probe: strong", () => {
  it(`is a top-${STRONG_RANK} rank in some search`, () => {
    expect(isStrongRank(1)).toBe(true);
    expect(isStrongRank(STRONG_RANK)).toBe(true);
    expect(isStrongRank(STRONG_RANK + 1)).toBe(false);
  });

  it("needs the memory to hold at least half of the search's terms, and two when it has two or more", () => {
    expect(isStrongMatch("When is the Atlas launch?", "The Atlas launch moved to May.")).toBe(true);
    // One word of two shared ("v1"-style overlap): not strong.
    expect(isStrongMatch("When is the Atlas launch?", "Atlas billing migrated in v1.")).toBe(false);
    expect(isStrongMatch("When did Atlas launch and who owns the rollout?", "Atlas launch owner: Jonah")).toBe(true);
    expect(isStrongMatch("When did Atlas launch and who owns the rollout?", "Atlas and Zeppelin")).toBe(false);
    // Stems meet: launches / launched.
    expect(isStrongMatch("atlas launches", "Atlas launched in May")).toBe(true);
    // One search term: that term must be there.
    expect(isStrongMatch("zeppelin", "Zeppelin hangar lease")).toBe(true);
    expect(isStrongMatch("the what", "anything")).toBe(false);
  });

  it("a top-ranked memory that shares one word of the question is not strong", async () => {
    const memory = portReturning({ "When is the Atlas launch?": [{ ...fact("w", "Atlas billing notes"), rank: 1 }] });
    const result = await probe(input(memory, { enabledTiers: ["raw_facts"] }));
    expect(result.hits).toEqual([expect.objectContaining({ id: "w", bestRank: 1, strong: false })]);
    expect(result.strong).toBe(false);
  });

  it("is not reached by scraping the bottom of several searches", async () => {
    const hit = (rank: number): FactHit => ({ ...fact("deep", "Atlas launch, deep in the list"), rank });
    const memory = portReturning({ "When is the Atlas launch?": [hit(4)], other: [hit(4)], third: [hit(4)] });
    const result = await probe(input(memory, { enabledTiers: ["raw_facts"], modelQueries: ["other", "third"] }));
    expect(result.hits).toEqual([expect.objectContaining({ id: "deep", bestRank: 4, strong: false })]);
    expect(result.strong).toBe(false);
    const top3 = await probe(
      input(portReturning({ "When is the Atlas launch?": [hit(3)] }), { enabledTiers: ["raw_facts"] }),
    );
    expect(top3.strong).toBe(true);
  });
});

describe("probe: a negative answer", () => {
  it.each([
    ["", true],
    ["   ", true],
    [NO_EVIDENCE_ANSWER, true],
    ["**No relevant memories** were found.", true],
    ["I couldn't find anything about the Atlas launch.", true],
    ["I could not find the launch date.", true],
    ["The bank holds nothing on that.", true],
    ["There is no information about Atlas in this bank.", true],
    ["Nothing was found.", true],
    ["TBD", true],
    ["I don't know.", true],
    ["There is nothing in memory about Globex.", true],
    ["I have no data on that question.", true],
    ["Atlas launches on March 14.", false],
    ["Priya owns the launch checklist and the information desk.", false],
  ])("%j says nothing was found: %s", (answer, expected) => {
    expect(saysNothingFound(answer)).toBe(expected);
  });

  const none = new Set<RunFlag>();
  it.each([
    ["no_evidence", "anything", none, true],
    ["halted", "Atlas launches on March 14.", none, true],
    ["done", "Atlas launches on March 14.", new Set<RunFlag>(["ungrounded"]), true],
    ["done", "I could not find it.", none, true],
    ["degraded", NO_EVIDENCE_ANSWER, none, true],
    ["done", "Atlas launches on March 14.", none, false],
    ["degraded", "Memories retrieved: [f1] Atlas launch moved.", none, false],
  ] as const)("status %s with %j is negative: %s", (status, answer, flags, expected) => {
    expect(isNegativeAnswer(status, answer, flags)).toBe(expected);
  });

  // A cited answer that happens to use a not-found phrase answered from evidence (no false
  // missed_evidence); uncited, the same text reads negative, and no_evidence stays negative.
  it.each([
    ["done", "Atlas launched on October 20 [f-152]. There is no mention of a delay.", 1, false],
    ["done", "The Team plan does not contain SSO; SSO is Enterprise only [mm-pricing].", 1, false],
    ["degraded", "No evidence of data loss was found in the incident review [f-157].", 2, false],
    ["done", "Atlas launched on October 20. There is no mention of a delay.", 0, true],
    ["no_evidence", "No relevant memories were found.", 1, true],
  ] as const)("status %s with %j citing %i is negative: %s", (status, answer, cited, expected) => {
    expect(isNegativeAnswer(status, answer, new Set<RunFlag>(), cited)).toBe(expected);
  });
});

describe("probe: in a run", () => {
  /** Obeys forced retrieval with a useless query, then says it found nothing (or cites f1). */
  const model = (answer: "nothing" | "cite") =>
    new ScriptedModel((req) => {
      const forced = forcedTool(req);
      const query = answer === "cite" ? "Atlas launch" : "zeppelin";
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query }));
      if (answer === "cite") return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
      return reply(done("I could not find anything about that in the bank.", {}));
    });

  it("flags a negative answer while the question's search ranks an unseen fact first", async () => {
    const memory = new InMemoryMemory({
      facts: [...ATLAS_FACTS, fact("fz", "Zeppelin hangar lease renewed.")],
      observations: ATLAS_OBSERVATIONS,
    });
    const m = model("nothing");
    const h = harness(memory, m);
    const callsAt: Record<string, number> = {};
    const sink = h.deps.sink;
    h.deps.sink = {
      append: async (e) => {
        callsAt[e.type] = m.calls;
        await sink.append(e);
      },
    };
    const result = await runReflect(h.deps, request());
    expect(result.status).toBe("done");
    expect(result.flags).toContain("missed_evidence");
    expect(result.probe?.queries).toEqual(["When is the Atlas launch?", "zeppelin"]);
    expect(result.probe?.hits).toContainEqual(
      expect.objectContaining({
        id: "f1",
        tier: "raw_facts",
        bestRank: 1,
        strong: true,
        query: "When is the Atlas launch?",
      }),
    );
    expect(result.probe?.hits.map((x) => x.id)).not.toContain("fz");
    // Recorded before the finish, identical to the result's probe.
    const types = h.events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(["probe.finished", "run.finished"]);
    expect(ofType(h.events, "probe.finished")[0]?.payload).toEqual(result.probe);
    // No model call: the count when the probe was recorded equals the count at the finish and the result's.
    expect(callsAt["probe.finished"]).toBe(callsAt["citations.validated"]);
    expect(callsAt["run.finished"]).toBe(m.calls);
    expect(result.llmCalls).toBe(m.calls);
  });

  it("does not flag a run that cited the fact", async () => {
    const { result } = await run(new InMemoryMemory({ facts: ATLAS_FACTS }), model("cite"), {
      skill: { ...SKILL, retrieval: { ...SKILL.retrieval, types: ["episodic"] } },
    });
    expect(result.status).toBe("done");
    expect(result.flags).not.toContain("missed_evidence");
    expect(result.citations.memory_ids).toEqual(["f1"]);
    expect(result.probe?.hits.map((x) => x.id)).not.toContain("f1");
  });

  it("v2: flags a run that read the answer and said 'not found', naming what it read and its rank", async () => {
    // The run's own searches return f1 first; the model reads it and says it found nothing.
    const reader = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "Atlas launch" }));
      return reply(done("I could not find anything about that in the bank.", {}));
    });
    const { result, events } = await run(new InMemoryMemory({ facts: ATLAS_FACTS }), reader, {
      skill: { ...SKILL, retrieval: { ...SKILL.retrieval, types: ["episodic"] } },
    });
    expect(result.flags).toContain("missed_evidence");
    // Nothing unseen: v1 alone would not have flagged it.
    expect(result.probe?.strong).toBe(false);
    expect(result.probe?.unused).toContainEqual(expect.objectContaining({ id: "f1", tier: "raw_facts", rank: 1 }));
    expect(ofType(events, "probe.finished")[0]?.payload.unused?.[0]?.id).toBe("f1");
  });

  it("v2: does not flag a run that read the answer and quoted it, and records no unused list", async () => {
    const { result } = await run(new InMemoryMemory({ facts: ATLAS_FACTS }), model("cite"), {
      skill: { ...SKILL, retrieval: { ...SKILL.retrieval, types: ["episodic"] } },
    });
    expect(result.flags).not.toContain("missed_evidence");
    expect(result.probe).not.toHaveProperty("unused");
  });

  it("facts mode has no probe", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS });
    const { result, events } = await run(memory, new ScriptedModel([]), { mode: "facts" });
    expect(result.probe).toBeNull();
    expect(ofType(events, "probe.finished")).toEqual([]);
    expect(memory.probeSearches).toEqual([]);
  });
});

/** A memory port whose recall answers each query with fixed hits (other tiers: nothing). */
function portReturning(byQuery: Record<string, FactHit[]>): MemoryPort {
  return {
    ...bind(new InMemoryMemory({})),
    recall: async (q) => byQuery[q.query] ?? [],
  };
}

function bind(memory: InMemoryMemory): MemoryPort {
  return {
    countInScope: (q) => memory.countInScope(q),
    countMentalModels: () => memory.countMentalModels(),
    permitsScope: (q) => memory.permitsScope(q),
    searchMentalModels: (q) => memory.searchMentalModels(q),
    searchObservations: (q) => memory.searchObservations(q),
    recall: (q) => memory.recall(q),
  };
}

describe("probe: searches the run already saw in full", () => {
  it("are skipped only when they are the probe's own search and the model saw every hit", () => {
    expect(seenInFull({ limit: PROBE_SEARCH_LIMIT, returned: PROBE_SEARCH_LIMIT, seen: PROBE_SEARCH_LIMIT })).toBe(
      true,
    );
    expect(seenInFull({ limit: 5, returned: 3, seen: 3 })).toBe(true);
    expect(seenInFull({ limit: 20, returned: 7, seen: 7 })).toBe(true);
    // Deeper and full: its first hits need not be the probe's (test/integration/db/probe-reuse.test.ts).
    expect(seenInFull({ limit: 20, returned: 20, seen: 20 })).toBe(false);
    // The store may hold more than a shallow search returned, or the cap hid some hits.
    expect(seenInFull({ limit: 5, returned: 5, seen: 5 })).toBe(false);
    expect(seenInFull({ limit: 20, returned: 7, seen: 5 })).toBe(false);
  });

  it("skips them and finds the same hits", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const evidence = new Evidence();
    evidence.add({ tier: "raw_facts", hits: ATLAS_FACTS.slice(0, 2) });
    const base = { evidence, modelQueries: ["Atlas launch"] };
    const full = await probe(input(memory, base));
    const searchesBefore = memory.probeSearches.length;
    const skipped = await probe(
      input(memory, { ...base, seenInFull: new Set([searchKey("raw_facts", " atlas LAUNCH ")]) }),
    );
    expect(memory.probeSearches.length - searchesBefore).toBe(searchesBefore - 1);
    expect(skipped.hits).toEqual(full.hits);
    expect(skipped.queries).toEqual(full.queries);
  });
});

describe("probe: the run's own searches that the cap cut short", () => {
  it("are read only when they are the probe's own search: its depth, or fewer hits than either asks for", () => {
    expect(sameAsProbeSearch({ limit: PROBE_SEARCH_LIMIT, returned: PROBE_SEARCH_LIMIT })).toBe(true);
    expect(sameAsProbeSearch({ limit: 20, returned: 7 })).toBe(true);
    expect(sameAsProbeSearch({ limit: 5, returned: 3 })).toBe(true);
    // Deeper: a plain bank past the OR's limit, or a hybrid search, ranks by the depth asked
    // (test/integration/db/probe-reuse.test.ts); shallower and full: the store may hold more.
    expect(sameAsProbeSearch({ limit: 20, returned: 20 })).toBe(false);
    expect(sameAsProbeSearch({ limit: 20, returned: 12 })).toBe(false);
    expect(sameAsProbeSearch({ limit: 5, returned: 5 })).toBe(false);
  });

  it("are read instead of searched again, and give the same hits", async () => {
    const facts = Array.from({ length: 14 }, (_, i) => fact(`f${i}`, `Atlas launch note ${i}`));
    const memory = new InMemoryMemory({ facts, observations: ATLAS_OBSERVATIONS });
    const evidence = new Evidence();
    // The model saw the first three hits of its 20-deep search; the cap hid the rest.
    const returned = await memory.recall({
      bankId: "bank",
      query: "Atlas launch",
      limit: 20,
      tags: [],
      scope: "personal",
    });
    evidence.add({ tier: "raw_facts", hits: returned.slice(0, 3) });
    const base = { evidence, modelQueries: ["Atlas launch"] };
    const searched = await probe(input(memory, base));
    const before = memory.probeSearches.length;
    const runSearches = new Map([
      [searchKey("raw_facts", "atlas launch"), probeHitsOf({ tier: "raw_facts", hits: returned })],
    ]);
    const reused = await probe(input(memory, { ...base, runSearches }));
    const after = memory.probeSearches.slice(before);
    expect(after.filter((s) => s.method === "recall").map((s) => s.query.query)).toEqual(["When is the Atlas launch?"]);
    expect(after).toHaveLength(before - 1);
    expect(reused.hits).toEqual(searched.hits);
    expect(reused.hits.map((h) => h.id)).not.toContain("f0");
  });

  it("in a run: the probe reads the answer the cap hid instead of asking the store again", async () => {
    const facts = Array.from({ length: 14 }, (_, i) =>
      fact(`f${i}`, `Atlas launch note ${i}: ${"the launch checklist was reviewed again ".repeat(4)}`),
    );
    const memory = new InMemoryMemory({ facts });
    const m = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done")
        return reply(call(forced, { reason: "forced", query: "Atlas launch", max_results: PROBE_SEARCH_LIMIT }));
      return reply(done("I could not find anything about that in the bank.", {}));
    });
    const { result, events } = await run(memory, m, {
      toolResultCapChars: 600,
      skill: { ...SKILL, retrieval: { ...SKILL.retrieval, types: ["episodic"] } },
    });
    const seen = ofType(events, "tool.result").flatMap((e) => e.payload.ids.raw_facts);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(14);
    // The question is searched; the model's query is not searched again: its hidden hits are read from the run.
    expect(memory.probeSearches.map((s) => s.query.query)).toEqual(["When is the Atlas launch?"]);
    expect(result.probe?.hits.length).toBeGreaterThan(0);
    expect(result.probe?.hits.filter((h) => seen.includes(h.id))).toEqual([]);
  });
});

describe("probe: a store that searches a tier's queries at once", () => {
  it("is asked once per tier, gives the same hits, and names each failed query", async () => {
    const memory = new InMemoryMemory({
      facts: ATLAS_FACTS,
      observations: ATLAS_OBSERVATIONS,
      mentalModels: [mentalModel("mm1", "Atlas launch", "Atlas launches on March 14.")],
    });
    const tiers = ["mental_models", "observations", "raw_facts"] as const;
    const base = { modelQueries: ["Priya checklist", "security review"], enabledTiers: [...tiers] };
    const one = await probe(input(bind(memory), base));
    const calls: [string, string[]][] = [];
    const batching: MemoryPort = {
      ...bind(memory),
      probeSearchMany: async (tier, queries, q) => {
        calls.push([tier, [...queries]]);
        return Promise.all(
          queries.map(async (query) => {
            if (tier === "observations" && query === "security review") return { error: new Error("disk I/O error") };
            const hits =
              tier === "mental_models"
                ? (await memory.searchMentalModels({ ...q, query })).map((m) => ({
                    ...m,
                    text: `${m.name}: ${m.content}`,
                  }))
                : tier === "observations"
                  ? (await memory.searchObservations({ ...q, query })).observations
                  : await memory.recall({ ...q, query });
            return { hits: hits.map((h, i) => ({ id: h.id, rank: h.rank ?? i + 1, score: h.score, text: h.text })) };
          }),
        );
      },
    };
    const many = await probe(input(batching, base));
    expect(calls.map(([tier]) => tier).sort()).toEqual([...tiers]);
    for (const [, queries] of calls) expect(queries).toEqual(["When is the Atlas launch?", ...base.modelQueries]);
    expect(many.errors).toEqual(['observations search for "security review" failed: disk I/O error']);
    expect(many.hits.map((h) => [h.tier, h.id])).toEqual(one.hits.map((h) => [h.tier, h.id]));
    // A rejected call fails every query of its tier, by name; the other tiers still count.
    const rejecting: MemoryPort = {
      ...batching,
      probeSearchMany: (tier, queries, q) =>
        tier === "raw_facts" ? Promise.reject(new Error("locked")) : batching.probeSearchMany!(tier, queries, q),
    };
    const partial = await probe(input(rejecting, base));
    expect(partial.errors.filter((e) => e.startsWith("raw_facts"))).toHaveLength(3);
    expect(partial.hits.length).toBeGreaterThan(0);
  });
});

describe("probe: a store whose batched answer is broken", () => {
  it.each([
    ["answers fewer queries than it was asked", (n: number) => Array.from({ length: n - 1 }, () => ({ hits: [] }))],
    ["answers null", () => null],
    ["answers an entry that is neither hits nor an error", (n: number) => Array.from({ length: n }, () => ({}))],
  ])("%s: each search it did not answer is named, the rest still count", async (_name, answer) => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const base = { modelQueries: ["Priya checklist"], enabledTiers: ["observations", "raw_facts"] as Tier[] };
    const broken: MemoryPort = {
      ...bind(memory),
      probeSearchMany: async (tier, queries, q) =>
        tier === "observations"
          ? (answer(queries.length) as never)
          : Promise.all(
              queries.map(async (query) => ({
                hits: (await memory.recall({ ...q, query })).map((h, i) => ({
                  id: h.id,
                  rank: h.rank ?? i + 1,
                  score: h.score,
                  text: h.text,
                })),
              })),
            ),
    };
    const result = await probe(input(broken, base));
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors.every((e) => e.startsWith("observations search for"))).toBe(true);
    expect(result.hits.filter((h) => h.tier === "raw_facts").length).toBeGreaterThan(0);
    expect(result.hits.filter((h) => h.tier === "observations")).toEqual([]);
  });
});

describe("probe: the question's searches start with the run", () => {
  it("are made before the first model call, once per enabled tier, and the probe reads them", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    let beforeFirstCall: string[] | null = null;
    const m = new ScriptedModel((req) => {
      beforeFirstCall ??= memory.probeSearches.map((s) => `${s.method} ${s.query.query}`);
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "zeppelin" }));
      return reply(done("I could not find anything about that in the bank.", {}));
    });
    const { result } = await run(memory, m);
    expect(beforeFirstCall).toEqual([
      "searchObservations When is the Atlas launch?",
      "recall When is the Atlas launch?",
    ]);
    // Not searched again after the answer: the model's query is the only other probe search.
    expect(memory.probeSearches.filter((s) => s.query.query === "When is the Atlas launch?")).toHaveLength(2);
    expect(result.flags).toContain("missed_evidence");
    expect(result.probe?.hits).toContainEqual(
      expect.objectContaining({ id: "f1", tier: "raw_facts", strong: true, query: "When is the Atlas launch?" }),
    );
  });

  it("a model query the run's own search cannot stand for is searched right after it, not after the answer", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    let beforeAnswer: string[] | null = null;
    const m = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      // One hit asked for and returned: the probe's 10 need not be among it (`sameAsProbeSearch`).
      if (forced === "recall")
        return reply(call("recall", { reason: "forced", query: "Atlas launch", max_results: 1 }));
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "zeppelin" }));
      beforeAnswer = memory.probeSearches.map((s) => `${s.method} ${s.query.query}`);
      return reply(done("I could not find anything about that in the bank.", {}));
    });
    const { result } = await run(memory, m);
    expect(beforeAnswer).toContain("recall Atlas launch");
    // Made once: the probe after the answer read the early one.
    expect(memory.probeSearches.filter((s) => s.method === "recall" && s.query.query === "Atlas launch")).toHaveLength(
      1,
    );
    expect(result.probe?.queries).toContain("Atlas launch");
  });

  it("a failed early search is named by the probe and never an unhandled rejection", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const failing: MemoryPort = {
      ...bind(memory),
      recall: (q) => (q.probe ? Promise.reject(new Error("disk I/O error")) : memory.recall(q)),
    };
    const m = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "Atlas launch" }));
      return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
    });
    const h = harness(memory, m);
    h.deps.memory = failing;
    const result = await runReflect(h.deps, request());
    expect(result.status).toBe("done");
    expect(result.probe?.errors).toEqual(['raw_facts search for "When is the Atlas launch?" failed: disk I/O error']);
  });

  it("a store that throws instead of rejecting fails its searches, not the run", async () => {
    const memory = new InMemoryMemory({ facts: ATLAS_FACTS, observations: ATLAS_OBSERVATIONS });
    const throwing: MemoryPort = {
      ...bind(memory),
      probeSearchMany: () => {
        throw new Error("not today");
      },
    };
    const m = new ScriptedModel((req) => {
      const forced = forcedTool(req);
      if (forced && forced !== "done") return reply(call(forced, { reason: "forced", query: "Atlas launch" }));
      return reply(done("Atlas launches on March 14.", { memory_ids: ["f1"] }));
    });
    const h = harness(memory, m);
    h.deps.memory = throwing;
    const result = await runReflect(h.deps, request());
    expect(result.status).toBe("done");
    expect(result.probe?.errors).toEqual([
      'observations search for "When is the Atlas launch?" failed: not today',
      'raw_facts search for "When is the Atlas launch?" failed: not today',
    ]);
  });
});
