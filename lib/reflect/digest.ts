/**
 * A readable digest of retrieved memories: the facts-mode answer and the degraded fallback. Every
 * memory is quoted with its id, and the quoted ids are the digest's citations.
 */
import { type Citations, emptyCitations, TIER_REGISTRY } from "./domain";
import type { Evidence } from "./evidence";
import { hasNoContent } from "./no-content";
import { scaffoldingIn } from "./output-guard";
import type { FactHit, MentalModelHit, ObservationHit } from "./ports";

export const NO_EVIDENCE_ANSWER = "No relevant memories were found in this bank for that question.";

/**
 * One line of memory text. The output guard sees digests too: a memory whose text carries model
 * scaffolding (a stored leak) is named by its id but not quoted.
 */
const oneLine = (text: string) => {
  const leak = scaffoldingIn(text);
  if (leak) return `(text withheld: it contains model-internal formatting, ${leak})`;
  return text.replace(/\s+/g, " ").trim();
};

/** A memory with no content (blank or placeholder text) says nothing: a digest leaves it out. */
const says = (text: unknown) => typeof text === "string" && !hasNoContent(text);

function factLine(f: FactHit): string {
  const when = f.occurredAt ?? f.recordedAt;
  return `- [${f.id}] ${oneLine(f.text)} (${f.kind}, ${when.slice(0, 10)})`;
}

export function factsDigest(
  question: string,
  items: { facts?: FactHit[]; observations?: ObservationHit[]; mentalModels?: MentalModelHit[] },
): string {
  const sections: string[] = [];
  const models = (items.mentalModels ?? []).filter((m) => m.usable !== false && says(m.content));
  const observations = (items.observations ?? []).filter((o) => says(o.text));
  const facts = (items.facts ?? []).filter((f) => says(f.text));
  if (models.length > 0) {
    sections.push(
      `Mental models:\n${models.map((m) => `- [${m.id}] ${m.name}: ${oneLine(m.content)}${m.isStale ? " (stale)" : ""}`).join("\n")}`,
    );
  }
  if (observations.length > 0) {
    sections.push(`Observations:\n${observations.map((o) => `- [${o.id}] ${oneLine(o.text)}`).join("\n")}`);
  }
  if (facts.length > 0) sections.push(`Facts:\n${facts.map(factLine).join("\n")}`);
  if (sections.length === 0) return NO_EVIDENCE_ANSWER;
  return [`Memories retrieved for "${oneLine(question)}":`, ...sections].join("\n\n");
}

export function evidenceDigest(question: string, evidence: Evidence): string {
  return factsDigest(question, {
    mentalModels: evidence.hitsOf("mental_models"),
    observations: evidence.hitsOf("observations"),
    facts: evidence.hitsOf("raw_facts"),
  });
}

/** The ids a digest quotes (`[id]`), per tier: only memories the reader can actually see are cited. */
export function digestCitations(digest: string, evidence: Evidence): Citations {
  const citations = emptyCitations();
  for (const tier of TIER_REGISTRY) {
    citations[tier.citationKey] = evidence
      .hitsOf(tier.id)
      .map((h) => h.id)
      .filter((id) => digest.includes(`[${id}]`));
  }
  return citations;
}
