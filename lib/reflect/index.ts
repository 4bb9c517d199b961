/** The reflect engine's public surface. */
export { ANCHOR_PROGRESS_LIMIT, anchorText, isAnchorIteration, truncateCodePoints } from "./anchor";
export { callSignature, canonicalJson, signatureTool } from "./call-signature";
export { type CitationCheck, validateCitations } from "./citations";
export { evidenceDigest, factsDigest, NO_EVIDENCE_ANSWER } from "./digest";
export * from "./domain";
export { RESPONSE_SCHEMA_WARNING, type ReflectOptions, runReflect } from "./engine";
export { ModelCallError, NothingToSearchError, ScopeNotPermittedError } from "./errors";
export * from "./events";
export { Evidence } from "./evidence";
export { factsTier } from "./facts-mode";
export {
  decideFreshness,
  type FreshnessDecision,
  type FreshnessInput,
  isPlaceholderContent,
  isUsableContent,
} from "./freshness";
export { type LadderVerdict, NO_TOOL_CALL_SIGNATURE, NoProgressLadder, type TurnResult } from "./ladder";
export { type GuardInspection, harmonyLeak, inspectAnswer } from "./output-guard";
export type * from "./ports";
export { buildMessages, buildSystemPrompt } from "./prompt";
export * from "./request";
export { normalizeToolName } from "./tool-names";
export {
  clampMaxResults,
  DoneArgs,
  mentalModelsPayload,
  observationsPayload,
  recallPayload,
  SearchArgs,
  TOOL_DEFINITIONS,
} from "./tools";
