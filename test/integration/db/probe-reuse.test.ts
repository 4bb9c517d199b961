/**
 * The probe reads a run's own search instead of searching again (docs/engine.md#the-missed-evidence-probe)
 * only when that search's first hits ARE the probe's search: the same hits, in the same order, as
 * `probeSearch` at the probe's depth. On a plain bank whose query words match more than
 * `OR_RANKED_AT_MOST` memories, the store's ranking depends on the depth asked (the AND answer when
 * at least `limit` memories hold every word, else the OR), so a deeper search's first ten are not
 * the probe's ten.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "@/db/queries/memory-store";
import { OR_RANKED_AT_MOST } from "@/db/queries/search";
import { Evidence } from "@/lib/reflect/evidence";
import type { MemoryPort, ProbeHitText, Retrieved } from "@/lib/reflect/ports";
import { PROBE_SEARCH_LIMIT, probe, probeHitsOf, sameAsProbeSearch, searchKey, seenInFull } from "@/lib/reflect/probe";
import { clampMaxResults } from "@/lib/reflect/tools";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;
let memory: MemoryPort;

const fact = (id: string, text: string) => ({
  id,
  text,
  kind: "world" as const,
  tags: [],
  scope: "personal" as const,
  occurredAt: "2025-03-10T09:00:00Z",
  recordedAt: "2025-03-10T10:00:00Z",
});

const QUERY = "quarry gravel";

beforeAll(async () => {
  t = await openTempDb("probe-reuse");
  const bundle = sampleBundle();
  // "gravel" in more memories than the OR ranks as is; 15 hold both words (AND: ≥ 10, < 20), in long
  // texts; 30 short ones hold only the rarer "quarry", which bm25 ranks above them in the OR.
  const filler = " and the site office logged the weekly delivery notes for the depot team".repeat(3);
  bundle.facts?.push(
    ...Array.from({ length: OR_RANKED_AT_MOST + 100 }, (_, i) => fact(`g${i}`, `Gravel load ${i}${filler}.`)),
    ...Array.from({ length: 15 }, (_, i) => fact(`b${i}`, `Quarry gravel shipment ${i}${filler}.`)),
    ...Array.from({ length: 30 }, (_, i) => fact(`q${i}`, `Quarry ${i}.`)),
  );
  await importBundle(t.db, bundle);
  memory = createMemoryStore(t.db);
}, 120_000);
afterAll(() => t.cleanup());

const q = (limit: number) => ({ bankId: "acme", query: QUERY, limit, tags: [], scope: "personal" as const });

describe("a run's search the probe reads instead of its own", () => {
  it.each([PROBE_SEARCH_LIMIT, clampMaxResults("raw_facts", undefined), 50, 3])(
    "is read only when its first hits are the probe's search (raw facts, %i deep)",
    async (limit) => {
      const hits = await memory.recall(q(limit));
      const own = await memory.probeSearch!("raw_facts", { ...q(PROBE_SEARCH_LIMIT), probe: true });
      const stands = sameAsProbeSearch({ limit, returned: hits.length });
      // At the probe's own depth it is read; deeper or shallower, on this bank, it is not.
      expect(stands).toBe(limit === PROBE_SEARCH_LIMIT);
      if (stands) expect(probeHitsOf({ tier: "raw_facts", hits } as Retrieved)).toEqual(own);
    },
  );

  it("gives the probe the verdict its own search gives", async () => {
    const limit = clampMaxResults("raw_facts", undefined);
    const hits = await memory.recall(q(limit));
    const runSearches = new Map<string, ProbeHitText[]>();
    if (sameAsProbeSearch({ limit, returned: hits.length }))
      runSearches.set(searchKey("raw_facts", QUERY), probeHitsOf({ tier: "raw_facts", hits } as Retrieved));
    const base = {
      memory,
      clock: { now: () => 0 },
      bankId: "acme",
      scope: "personal" as const,
      tags: [],
      enabledTiers: ["raw_facts" as const],
      question: "Which quarry shipped the gravel?",
      modelQueries: [QUERY],
      evidence: new Evidence(),
    };
    const strip = (r: Awaited<ReturnType<typeof probe>>) => ({ ...r, durationMs: 0 });
    expect(strip(await probe({ ...base, runSearches }))).toEqual(strip(await probe(base)));
  });

  // A run that saw every hit of a deeper search: the probe does not skip that query, since its
  // own 10 are not among those hits on this bank (the 20-deep OR answer holds none of the 10-deep
  // AND answer). Skipping it, as an earlier version did, left the probe blind to memories the run
  // never read.
  it("a deeper search the model saw in full is not skipped: the probe's own hits of that query are not among its hits", async () => {
    const limit = clampMaxResults("raw_facts", undefined);
    const seen = (await memory.recall(q(limit))).map((h) => h.id);
    expect(seen).toHaveLength(limit);
    const own = await memory.probeSearch!("raw_facts", { ...q(PROBE_SEARCH_LIMIT), probe: true });
    // What skipping would have hidden: the probe's own hits the run never returned.
    expect(own.filter((h) => !seen.includes(h.id)).length).toBeGreaterThan(0);
    expect(seenInFull({ limit, returned: seen.length, seen: seen.length })).toBe(false);
  });
});
