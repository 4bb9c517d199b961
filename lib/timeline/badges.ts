import { RUN_FLAGS, type RunFlag, type RunStatus } from "@/lib/reflect/domain";

/** Visual tone of a badge; the component maps tones to accessible colour pairs. */
export type BadgeTone = "info" | "success" | "warning" | "danger" | "neutral";

export interface RunBadge {
  flag: RunFlag;
  label: string;
  tone: BadgeTone;
  /** One sentence a newcomer can read as a tooltip. */
  description: string;
}

const BADGES: Record<RunFlag, Omit<RunBadge, "flag">> = {
  short_circuited: {
    label: "short-circuited",
    tone: "success",
    description: "Every mental model returned was fresh and usable, so forced retrieval stopped early.",
  },
  nudged: {
    label: "nudged",
    tone: "warning",
    description: "The loop repeated a failing or empty call and received a request-scoped nudge.",
  },
  halted: {
    label: "halted",
    tone: "danger",
    description: "The no-progress ladder stopped the loop; the answer was synthesized from evidence so far.",
  },
  anchored: {
    label: "anchored",
    tone: "info",
    description: "A goal anchor restated the original question during the loop.",
  },
  ungrounded: {
    label: "ungrounded",
    tone: "danger",
    description: "Evidence was retrieved but no citation survived validation.",
  },
  degraded: {
    label: "degraded",
    tone: "danger",
    description:
      "The answer could not be used as written (leaked model formatting or a malformed final done); a digest of the retrieved memories was returned instead, citing the memories it quotes.",
  },
  release_miss: {
    label: "release miss",
    tone: "warning",
    description: "After a freshness release the model tried to finish without citing anything; done was rejected once.",
  },
  replayed: {
    label: "replayed",
    tone: "neutral",
    description: "Some model responses were replayed from the parent run (fork).",
  },
  truncated: {
    label: "truncated",
    tone: "warning",
    description: "The answer was longer than 20,000 characters and was cut; the stored answer says so at its end.",
  },
  missed_evidence: {
    label: "missed evidence",
    tone: "danger",
    description:
      "The answer says nothing was found (or the run ended without grounded evidence), yet a search of the question or the model's own queries ranks a memory the run never saw in its top 3.",
  },
  imported: {
    label: "imported",
    tone: "neutral",
    description:
      "Read from an OpenTelemetry trace another system sent to /v1/traces: shown, compared and exported like any run, never re-run here; what the trace did not carry is not shown.",
  },
};

/** Badges in a fixed order (the order of RUN_FLAGS), so lists and run pages read the same way. */
export function badgesFromFlags(flags: Iterable<RunFlag>): RunBadge[] {
  const present = new Set(flags);
  return RUN_FLAGS.filter((f) => present.has(f)).map((flag) => ({ flag, ...BADGES[flag] }));
}

export const STATUS_TONE: Record<RunStatus, BadgeTone> = {
  running: "info",
  done: "success",
  no_evidence: "neutral",
  halted: "warning",
  degraded: "warning",
  failed: "danger",
  interrupted: "danger",
};

export function statusLabel(status: RunStatus): string {
  return status.replace("_", " ");
}
