/**
 * The glossary: every word a badge or a label uses, in one place, each with an anchor that the
 * badges link to (`/glossary#short-circuited`). The run flags' sentences are the badges' own
 * tooltips (badges.ts), so a badge and its entry never disagree.
 */
import { RUN_FLAGS, type RunFlag, TIER_REGISTRY } from "@/lib/reflect/domain";
import { badgesFromFlags } from "./badges";

export interface GlossaryEntry {
  /** The anchor: lowercase words joined by "-", as the badge shows it. */
  id: string;
  term: string;
  definition: string;
  /** Which group the entry is listed under. */
  group: "tiers" | "the loop" | "run badges" | "statuses" | "memory" | "curation";
}

const anchorOf = (label: string) => label.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-");

const TIER_WORDS: Record<string, string> = {
  mental_models:
    "Tier 1: summaries a person curates (or accepts from Refresh now), each with a source query, versions and a staleness check. Searched first.",
  observations: "Tier 2: consolidated beliefs, each derived from raw facts it names (“from 5 facts”). Searched second.",
  raw_facts:
    "Tier 3: the ground truth — what was said or happened, with dates, scope and tags. Searched last. The model's tool for it is called `recall`; a skill's stored retrieval type for it is `episodic`: both name this tier.",
};

const FIXED: GlossaryEntry[] = [
  {
    id: "freshness-check",
    term: "freshness check",
    group: "the loop",
    definition:
      "After the mental-model search, the engine checks whether every model it returned is fresh and usable. If so (budget low or mid), forced retrieval stops: the run is short-circuited.",
  },
  {
    id: "forced",
    term: "forced",
    group: "the loop",
    definition:
      "An iteration whose request named the only tool the model could call: the first iterations force each enabled tier in order (mental models → observations → raw facts), and the last forces done.",
  },
  {
    id: "auto",
    term: "auto",
    group: "the loop",
    definition: "An iteration where the model chose among the offered tools.",
  },
  {
    id: "nudge",
    term: "nudge",
    group: "the loop",
    definition:
      "A system message sent with the next request only, after the same failing or empty call repeats: it asks the model to try something else. Never stored in the conversation.",
  },
  {
    id: "anchor",
    term: "anchor",
    group: "the loop",
    definition:
      "Every few iterations (the skill's anchor setting) the next request restates the original question, so a long loop does not drift.",
  },
  {
    id: "citation",
    term: "citation",
    group: "the loop",
    definition:
      "An id the answer names as its source. It is kept only if this run retrieved it from that tier; otherwise it is dropped with the reason.",
  },
  {
    id: "running",
    term: "running",
    group: "statuses",
    definition: "The run has not finished; its page follows it live.",
  },
  {
    id: "done",
    term: "done",
    group: "statuses",
    definition: "The model finished with an answer and its citations.",
  },
  {
    id: "no-evidence",
    term: "no evidence",
    group: "statuses",
    definition: "Every enabled tier was searched and nothing relevant came back: the answer says so and cites nothing.",
  },
  {
    id: "halted-status",
    term: "halted (status)",
    group: "statuses",
    definition: "The no-progress ladder stopped the loop; the answer was written from the evidence gathered so far.",
  },
  {
    id: "degraded-status",
    term: "degraded (status)",
    group: "statuses",
    definition:
      "The final answer could not be used as written; the run answered with a digest of the memories it retrieved instead.",
  },
  {
    id: "failed",
    term: "failed",
    group: "statuses",
    definition: "Something broke (the model, the store, the wall clock); the run's error says what and where.",
  },
  {
    id: "interrupted",
    term: "interrupted",
    group: "statuses",
    definition: "The process running the run stopped before it finished.",
  },
  {
    id: "fresh",
    term: "fresh",
    group: "memory",
    definition: "A mental model with no newer memory in its scope since it was last refreshed.",
  },
  {
    id: "stale",
    term: "stale",
    group: "memory",
    definition:
      "A mental model that has newer memories in its scope than its last refresh (or was never refreshed): a run verifies it in the lower tiers.",
  },
  {
    id: "forced-fresh",
    term: "forced fresh / forced stale",
    group: "memory",
    definition:
      "A staleness override a person saved: the model counts as fresh (or stale) whatever new memories arrive, until someone clears the override. It is permanent, so it is only ever saved when chosen.",
  },
  {
    id: "unusable",
    term: "unusable",
    group: "memory",
    definition:
      "A mental model whose text is empty or a placeholder (“Generating content…”): it never counts as fresh and is never quoted.",
  },
  {
    id: "draft",
    term: "draft",
    group: "curation",
    definition:
      "A run that read unsaved text — a skill draft from Try, or the edits of Re-run with changes or an experiment. The saved skill and mental models are unchanged; Save these changes keeps the edits.",
  },
  {
    id: "refresh-proposal",
    term: "refresh proposal",
    group: "curation",
    definition:
      "Refresh now reruns a mental model's source query (mental models left out) and proposes the answer as new content. Nothing is saved until you accept it, on the editor or on the refresh run's page.",
  },
  {
    id: "fork",
    term: "fork",
    group: "curation",
    definition:
      "A run that replays its parent's recorded model responses up to an iteration and goes live from there. A replayed step whose tool results differ today is marked as drift.",
  },
  {
    id: "suite",
    term: "suite and experiment",
    group: "curation",
    definition:
      "A suite is a saved list of questions with expectations; an experiment runs all of them and checks them, so a fix to one answer is proven not to break the others.",
  },
];

/** Every entry, grouped in the order the glossary page shows them. */
export const GLOSSARY: readonly GlossaryEntry[] = [
  ...TIER_REGISTRY.map((t) => ({
    id: anchorOf(t.label),
    term: t.label,
    group: "tiers" as const,
    definition: TIER_WORDS[t.id] ?? "",
  })),
  ...FIXED.filter((e) => e.group === "the loop"),
  ...badgesFromFlags(RUN_FLAGS).map((b) => ({
    id: anchorOf(b.label),
    term: b.label,
    group: "run badges" as const,
    definition: b.description,
  })),
  ...FIXED.filter((e) => e.group !== "the loop"),
];

/** Where a badge's word is explained. */
export function glossaryHref(id: string): string {
  return `/glossary#${id}`;
}

/** The entry of a run flag (its badge label as the anchor). */
export function flagTerm(flag: RunFlag): string {
  return anchorOf(badgesFromFlags([flag])[0]?.label ?? flag);
}

/** The entry of a run status ("halted" and "degraded" are also flags: their status entries are separate). */
export function statusTerm(status: string): string {
  return status === "halted" || status === "degraded" ? `${status}-status` : anchorOf(status);
}

/** The entry of a tier, by its id. */
export function tierTerm(tier: string): string {
  const t = TIER_REGISTRY.find((x) => x.id === tier);
  return anchorOf(t?.label ?? tier);
}
