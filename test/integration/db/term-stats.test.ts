/**
 * The offline model's term statistics come from the bank's own FTS5 indexes (text and tags), and
 * its stemmer must split and stem words exactly as those indexes do: otherwise "covered" and
 * "missing" words would disagree with what a search can find. Another bank's words never count.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import demo from "@/db/demo/demo-bank.json";
import { termDocumentFrequencies } from "@/db/queries/term-stats";
import { tokenize } from "@/lib/llm/offline/text";
import { importBundle } from "@/lib/server/services/bundle-io";
import { sampleBundle } from "./sample-bundle";
import { openTempDb } from "./temp-db";

let t: Awaited<ReturnType<typeof openTempDb>>;

beforeAll(async () => {
  t = await openTempDb("term-stats");
  await importBundle(t.db, sampleBundle());
  // A second bank full of billing talk: it must not shift the first bank's statistics.
  const other = sampleBundle();
  other.bank = { ...other.bank, id: "other", name: "Other" };
  other.facts = Array.from({ length: 30 }, (_, i) => ({ ...other.facts![0]!, id: `x${i}`, text: `Billing run ${i}.` }));
  other.observations = [];
  other.mentalModels = [];
  await importBundle(t.db, other);
});
afterAll(() => t.cleanup());

describe("term document frequencies", () => {
  it("counts every indexed memory and, per porter stem, the memories that use it", async () => {
    const { facts = [], observations = [], mentalModels = [] } = sampleBundle();
    const documents = facts.length + observations.length + mentalModels.length;
    const stats = await termDocumentFrequencies(t.db, "acme", ["bill", "launch", "nowher"]);
    expect(stats.documents).toBe(documents);
    const tagsOf = (x: { tags?: string[] }) => (x.tags ?? []).join(" ");
    const texts = [
      ...facts.map((f) => `${f.text} ${tagsOf(f)}`),
      ...observations.map((o) => `${o.text} ${tagsOf(o)}`),
      ...mentalModels.map((m) => `${m.name} ${m.sourceQuery} ${m.content} ${tagsOf(m)}`),
    ];
    const using = (stem: string) => texts.filter((text) => tokenize(text).some((tok) => tok.stem === stem)).length;
    expect(using("bill")).toBeGreaterThan(1);
    expect(stats.frequencies.get("bill")).toBe(using("bill"));
    expect(stats.frequencies.get("launch")).toBe(using("launch"));
    expect(stats.frequencies.has("nowher")).toBe(false);
  });

  it("answers an empty lookup with the document count alone", async () => {
    const stats = await termDocumentFrequencies(t.db, "acme", []);
    expect(stats.documents).toBeGreaterThan(0);
    expect(stats.frequencies.size).toBe(0);
  });

  it("the offline stemmer stems every word of the demo bank as FTS5's porter tokenizer does", async () => {
    const texts = [
      ...demo.facts.map((f) => f.text),
      ...demo.observations.map((o) => o.text),
      ...demo.mentalModels.map((m) => m.content),
    ];
    const c = t.db.$client;
    await c.execute("CREATE VIRTUAL TABLE porter_check USING fts5(body, tokenize='porter unicode61')");
    await c.execute("CREATE VIRTUAL TABLE porter_check_terms USING fts5vocab(porter_check, 'instance')");
    // One row per text; FTS5 reports each token's stem with its row and position.
    await c.batch(
      texts.map((body, i) => ({ sql: "INSERT INTO porter_check(rowid, body) VALUES (?, ?)", args: [i + 1, body] })),
      "write",
    );
    const { rows } = await c.execute("SELECT doc, offset, term FROM porter_check_terms ORDER BY doc, offset");
    const fts = new Map<string, string>();
    for (const row of rows) fts.set(`${row.doc}:${row.offset}`, String(row.term));
    const ours = new Map<string, string>();
    texts.forEach((text, i) => {
      for (const token of tokenize(text)) ours.set(`${i + 1}:${token.position}`, token.stem);
    });
    expect(fts.size).toBeGreaterThan(3000);
    expect(ours).toEqual(fts);
  });
});
