/**
 * `model check`: what the configured model server can do, probed with tiny requests. The report is
 * printed by the CLI and shown on the model page; the action that runs it takes no input.
 */
import { z } from "zod";
import { TextToolCallFormat } from "@/lib/reflect/events";

export const MODEL_CHECK_PROBES = ["plain_chat", "tools_auto", "named_choice", "required_choice", "no_choice"] as const;
export const ProbeName = z.enum(MODEL_CHECK_PROBES);
export type ProbeName = z.infer<typeof ProbeName>;

export const ReasoningSource = z.enum(["reasoning_content", "reasoning", "think_block"]);

export const ProbeResult = z.object({
  probe: ProbeName,
  label: z.string(),
  ok: z.boolean(),
  /** The tool call came back structured, as text, or not at all; null for plain chat and unsent probes. */
  call: z.enum(["structured", "text", "none"]).nullable(),
  /** The text form the calls were read from, when `call` is "text". */
  textFormat: TextToolCallFormat.nullable(),
  /** Where the reasoning came from, when the response carried some. */
  reasoning: ReasoningSource.nullable(),
  /** What happened, one line, never the key. */
  detail: z.string(),
  /** Measured round trip in ms; null when the probe was not sent. */
  latencyMs: z.number().nonnegative().nullable(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

export const ModelCheckReport = z.object({
  provider: z.object({
    kind: z.enum(["offline", "openai"]),
    model: z.string(),
    baseUrlHost: z.string().optional(),
  }),
  probes: z.array(ProbeResult),
  /** How the model calls tools at best. */
  toolCalls: z.enum(["structured", "text", "none"]),
  /** The text forms the provider read calls from. */
  textForms: z.array(TextToolCallFormat),
  /** Where reasoning came back, if anywhere. */
  reasoning: z.array(ReasoningSource),
  /** The forced form to pin, or null when no forced form produced a call. */
  recommendedForcedToolChoice: z.enum(["named", "required", "omit"]).nullable(),
  summary: z.string(),
  /** 0 when runs can call tools (under auto and some forced form), 1 otherwise. */
  exitCode: z.union([z.literal(0), z.literal(1)]),
});
export type ModelCheckReport = z.infer<typeof ModelCheckReport>;

const FORMAT_WORDS = {
  hermes: "Hermes <tool_call>",
  mistral: "Mistral [TOOL_CALLS]",
  bare_json: "bare JSON",
  harmony: "harmony to=functions",
} as const;

/** The rows after the probes, the same in the terminal and on the model page. */
export function findingRows(r: ModelCheckReport): { label: string; result: string; detail: string }[] {
  return [
    {
      label: "tool calls as text",
      result: r.textForms.length > 0 ? "read" : "—",
      detail:
        r.textForms.length > 0 ? `the app reads ${r.textForms.map((f) => FORMAT_WORDS[f]).join(", ")}` : "none seen",
    },
    {
      label: "reasoning",
      result: r.reasoning.length > 0 ? "seen" : "—",
      detail: r.reasoning.join(", ") || "none returned",
    },
  ];
}

/** The forced tool-choice setting to use, in words. */
export function recommendationText(r: ModelCheckReport): string {
  const form = r.recommendedForcedToolChoice;
  if (form === null) return "none: no forced form produced a tool call";
  if (form === "named") return "REFLECT_FORCED_TOOL_CHOICE=named (the default: leave it unset)";
  return `REFLECT_FORCED_TOOL_CHOICE=${form}`;
}

/** The "Check model" action: the configured model is checked, nothing is chosen by the caller. */
export const ModelCheckInput = z.object({}).strict();
export type ModelCheckInput = z.infer<typeof ModelCheckInput>;
