/** The tier registry names each tier once: tables, memory-page tabs and searched/embedded tables derive from it. */
import { describe, expect, it } from "vitest";
import { EMBEDDED_TABLES } from "@/db/queries/embeddings";
import { SEARCHED_TABLES } from "@/db/queries/search-index";
import { MemoryPage, MemoryQuery, MemoryTier } from "@/lib/contracts/memory";
import { parseQuery } from "@/lib/contracts/query";
import { TIER_REGISTRY, TIER_TABLES, TIERS } from "@/lib/reflect/domain";
import { memoryHref } from "@/lib/timeline/memory-text";

describe("tier registry", () => {
  it("every tier names its table; the searched and embedded tables are exactly the tiers' tables", () => {
    expect(TIER_TABLES).toEqual(TIER_REGISTRY.map((t) => t.table));
    expect([...SEARCHED_TABLES].sort()).toEqual([...TIER_TABLES].sort());
    expect([...EMBEDDED_TABLES].sort()).toEqual([...TIER_TABLES].sort());
    // The storage name that differs from the tier's name is said in the registry, once.
    expect(TIER_REGISTRY.find((t) => t.id === "raw_facts")?.table).toBe("facts");
  });

  it("the memory page's tabs are the tiers, by the tier's one name", () => {
    expect(TIERS.map((t) => MemoryTier.parse(t))).toEqual([...TIERS]);
    expect(MemoryQuery.parse({ tier: "raw_facts" }).tier).toBe("raw_facts");
    expect(() => MemoryTier.parse("memories")).toThrow();
    expect(MemoryPage.safeParse({ tier: "facts", items: [] }).success).toBe(false);
    expect(memoryHref("demo", "raw_facts", "f1")).toContain("tier=raw_facts");
  });

  it("a saved link with the tab's old name (tier=facts) still opens the raw-facts tab", () => {
    expect(MemoryQuery.parse({ tier: "facts" }).tier).toBe("raw_facts");
    expect(parseQuery(new URLSearchParams("tier=facts&q=launch"), MemoryQuery)).toMatchObject({
      tier: "raw_facts",
      q: "launch",
    });
    expect(MemoryQuery.parse({}).tier).toBe("mental_models");
  });
});
