/**
 * One synthesize run's inputs and the state its parts share: the loop (engine.ts), the model turns
 * (model-turns.ts), the done/answer handling (done.ts) and the endings (endings.ts).
 */
import type { RunFlag } from "./domain";
import { Evidence } from "./evidence";
import type { ChatMessage, ModelResponse, ReflectDeps } from "./ports";
import type { ParsedReflectRequest } from "./request";
import type { RunLog } from "./run-log";

export interface ReflectOptions {
  signal?: AbortSignal;
  /** Fork: iterations below `forkAt` reuse the parent's responses; later ones call the model live. */
  replay?: { forkAt: number; responses: ModelResponse[] };
}

export class RunContext {
  /** The persisted conversation: request-scoped injections never enter it. */
  readonly conversation: ChatMessage[] = [];
  readonly evidence = new Evidence();
  readonly flags = new Set<RunFlag>();
  readonly usage = { inputTokens: 0, outputTokens: 0 };
  /** Model calls actually made (replayed responses are not calls). */
  llmCalls = 0;
  /** Tool calls the model made in the whole run; zero after real calls means it cannot call tools. */
  toolCallsSeen = 0;
  /** Iterations started, the final forced turn and a guard retry included. */
  iterations = 0;
  /** The system prompt, fixed once the enabled tiers are known. */
  system = "";
  /** Where the run is, for the failure receipt. */
  phase = "run.started";
  /** The latest note the model wrote beside tool calls; the goal anchor restates it. */
  progressText: string | null = null;
  /** Mental models whose freshness released forced retrieval; null while forcing. */
  released: string[] | null = null;

  constructor(
    readonly deps: ReflectDeps,
    readonly req: ParsedReflectRequest,
    readonly log: RunLog,
    readonly warnings: string[],
    readonly options: ReflectOptions,
  ) {}
}
