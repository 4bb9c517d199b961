/**
 * The batch-aware no-progress ladder (docs/engine.md#steering). Fed once per model turn with that turn's
 * classified tool results; answers with at most one nudge or a halt.
 */
import { signatureTool } from "./call-signature";
import type { OutcomeClass } from "./events";

export interface TurnResult {
  signature: string;
  outcome: OutcomeClass;
}

export interface LadderNudge {
  kind: "nudge";
  trigger: "identical_failure" | "failure_streak" | "repeated_empty";
  signature: string | null;
  count: number;
  /** 0-based iteration where the streak began. */
  sinceIteration: number;
  text: string;
}

export interface LadderHalt {
  kind: "halt";
  trigger: "identical_failure" | "failure_streak" | "policy_reject";
  signature: string | null;
  count: number;
  sinceIteration: number;
  reason: string;
}

export type LadderVerdict = LadderNudge | LadderHalt | null;

export const NO_TOOL_CALL_SIGNATURE = "(no tool call)";
export const IDENTICAL_NUDGE_AT = 2;
export const IDENTICAL_HALT_AT = 3;
export const STREAK_NUDGE_AT = 4;
export const STREAK_HALT_AT = 6;

interface Repeat {
  count: number;
  outcome: OutcomeClass;
}

/** Iterations are numbered from 0 everywhere a user reads them (timeline, compare, nudges, halts). */
const at = (iteration: number) => `iteration ${iteration}`;

export class NoProgressLadder {
  /** Consecutive-turn repeats per non-success signature; a signature absent from a turn drops out. */
  private repeats = new Map<string, Repeat>();
  /** Failures (error, policy_reject) in a row, across turns. */
  private streak = 0;
  private streakSince = 0;
  private streakNudged = false;
  /** First iteration without progress since the last success: what "no progress since iteration X" names. */
  private stuckSince: number | null = null;
  /** Iteration of the last nudge since the last reset; a halt needs one delivered in an earlier turn. */
  private lastNudgeAt: number | null = null;

  observe(iteration: number, results: TurnResult[]): LadderVerdict {
    if (results.some((r) => r.outcome === "success")) {
      this.reset();
      return null;
    }
    this.stuckSince ??= iteration;
    // Identical calls inside one turn count once.
    const distinct = new Map<string, OutcomeClass>();
    for (const r of results) if (!distinct.has(r.signature)) distinct.set(r.signature, r.outcome);

    const next = new Map<string, Repeat>();
    for (const [signature, outcome] of distinct) {
      const prev = this.repeats.get(signature);
      next.set(signature, { count: (prev?.count ?? 0) + 1, outcome });
      if (outcome === "error" || outcome === "policy_reject") {
        if (this.streak === 0) this.streakSince = iteration;
        this.streak += 1;
      }
    }
    this.repeats = next;

    const halt = this.haltVerdict(iteration);
    if (halt) return halt;
    const nudge = this.nudgeVerdict();
    if (nudge) {
      this.lastNudgeAt = iteration;
      if (nudge.trigger === "failure_streak") this.streakNudged = true;
    }
    return nudge;
  }

  private haltVerdict(iteration: number): LadderHalt | null {
    for (const [signature, r] of this.repeats) {
      if (r.outcome === "policy_reject" && r.count >= 2) {
        return {
          kind: "halt",
          trigger: "policy_reject",
          signature,
          count: r.count,
          sinceIteration: this.since(),
          reason: `The same call was rejected by scope policy ${r.count} times since ${at(this.since())} (${signature}).`,
        };
      }
    }
    const nudgedEarlier = this.lastNudgeAt !== null && this.lastNudgeAt < iteration;
    if (!nudgedEarlier) return null;
    for (const [signature, r] of this.repeats) {
      if (r.count >= IDENTICAL_HALT_AT) {
        return {
          kind: "halt",
          trigger: "identical_failure",
          signature,
          count: r.count,
          sinceIteration: this.since(),
          reason: `No progress since ${at(this.since())}: the same call came back ${r.outcome} ${r.count} times (${signature}).`,
        };
      }
    }
    if (this.streak >= STREAK_HALT_AT) {
      return {
        kind: "halt",
        trigger: "failure_streak",
        signature: null,
        count: this.streak,
        sinceIteration: this.streakSince,
        reason: `No progress since ${at(this.streakSince)}: ${this.streak} tool calls failed in a row.`,
      };
    }
    return null;
  }

  private nudgeVerdict(): LadderNudge | null {
    for (const [signature, r] of this.repeats) {
      if (r.count >= IDENTICAL_NUDGE_AT) {
        const empty = r.outcome === "empty";
        return {
          kind: "nudge",
          trigger: empty ? "repeated_empty" : "identical_failure",
          signature,
          count: r.count,
          sinceIteration: this.since(),
          text:
            `No progress since ${at(this.since())}: the same ${signatureTool(signature)} call ` +
            `${empty ? "returned nothing" : "failed"} ${r.count} times. Do not repeat it: change the query or ` +
            "arguments, try another tier, or call done with the evidence you already have.",
        };
      }
    }
    if (this.streak >= STREAK_NUDGE_AT && !this.streakNudged) {
      return {
        kind: "nudge",
        trigger: "failure_streak",
        signature: null,
        count: this.streak,
        sinceIteration: this.streakSince,
        text:
          `No progress since ${at(this.streakSince)}: ${this.streak} tool calls failed in a row. ` +
          "Check the tool names and arguments, try a different approach, or call done with the evidence you have.",
      };
    }
    return null;
  }

  private since(): number {
    return this.stuckSince ?? 0;
  }

  private reset(): void {
    this.stuckSince = null;
    this.repeats.clear();
    this.streak = 0;
    this.streakNudged = false;
    this.lastNudgeAt = null;
  }
}
