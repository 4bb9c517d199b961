/** The system prompt and the per-request message list (docs/engine.md#grounding-citations-and-the-output-guard). */
import { type ScopeValue, type SkillSnapshot, TIER_INFO, type Tier } from "./domain";
import type { Injection } from "./events";
import type { ChatMessage } from "./ports";

const GROUNDING_RULES = [
  "Answer only from memories returned by the tools in this conversation.",
  "Cite the ids of the memories you actually used in done (memory_ids, observation_ids, mental_model_ids).",
  "If nothing relevant was found, say so plainly instead of guessing.",
  "Never invent facts, names, dates or ids.",
];

/** The scope the run can actually read: a team the bank does not permit is never claimed (docs/engine.md#never-a-misleading-result). */
function scopeLine(scope: ScopeValue, permitted: boolean): string {
  if (scope === "personal") return "Scope: personal memories only.";
  const team = scope.replace("team:", "team ");
  return permitted
    ? `Scope: personal memories and memories of ${team}.`
    : `Scope: personal memories only (${team} was requested, but this bank does not permit it).`;
}

export function buildSystemPrompt(
  skill: SkillSnapshot,
  scope: ScopeValue,
  enabledTiers: Tier[],
  scopePermitted = true,
): string {
  const parts = [
    "You answer one question about a memory bank by searching its memories with the tools, then calling done.",
    `Grounding rules:\n${GROUNDING_RULES.map((r) => `- ${r}`).join("\n")}`,
  ];
  if (skill.mission.trim()) parts.push(`Mission: ${skill.mission.trim()}`);
  if (skill.disposition.length > 0) parts.push(`Disposition: ${skill.disposition.join(", ")}.`);
  parts.push(scopeLine(scope, scopePermitted));
  if (skill.outputFormat.trim()) parts.push(`Output format: ${skill.outputFormat.trim()}`);
  const guide = enabledTiers.map((t) => `- ${TIER_INFO[t].tool}: ${TIER_INFO[t].promptGuide}`);
  guide.push("- done: finish with the answer and the ids you used.");
  parts.push(`Tools:\n${guide.join("\n")}`);
  return parts.join("\n\n");
}

export interface PendingInjection {
  kind: Injection["kind"];
  text: string;
}

/**
 * [system, user(question), ...conversation, ...injections]. Injections are system messages for this
 * one request only: they are returned with their index and never written back into the conversation.
 */
export function buildMessages(
  system: string,
  question: string,
  conversation: readonly ChatMessage[],
  pending: readonly PendingInjection[],
): { messages: ChatMessage[]; injections: Injection[] } {
  const messages: ChatMessage[] = [
    { role: "system", content: system },
    { role: "user", content: question },
    ...conversation,
  ];
  const injections: Injection[] = [];
  for (const p of pending) {
    injections.push({ kind: p.kind, text: p.text, index: messages.length });
    messages.push({ role: "system", content: p.text });
  }
  return { messages, injections };
}
