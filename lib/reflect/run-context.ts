/**
 * One synthesize run's inputs and the state its parts share: the loop (engine.ts), the model turns
 * (model-turns.ts), the done/answer handling (done.ts) and the endings (endings.ts).
 */
import type { DeadlineScope } from "./deadline";
import type { RunFlag, Tier } from "./domain";
import { Evidence } from "./evidence";
import type { ChatMessage, ModelResponse, ProbeHitText, ReflectDeps } from "./ports";
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
  /** Requests sent to the model server: answered calls, retries, downgrades and failed calls. */
  modelRequests = 0;
  /** Tool calls the model made in the whole run; zero after real calls means it cannot call tools. */
  toolCallsSeen = 0;
  /** Searches that read the bank (success or empty): `no_evidence` needs at least one (docs/engine.md#never-a-misleading-result). */
  searchesCompleted = 0;
  /** The last error of a search that reached the store, for the receipt when none completed. */
  lastSearchError: string | null = null;
  /**
   * Tiers whose latest search reached the store and failed (tier → error): such a tier was not
   * searched, so a run without evidence cannot say the bank has nothing (docs/engine.md#never-a-misleading-result).
   */
  readonly failedSearches = new Map<Tier, string>();
  /** Tiers a search of which the store answered (hits or none): what "searched" means for `no_evidence`. */
  readonly searchedTiers = new Set<Tier>();
  /** Iterations started, the final forced turn and a guard retry included. */
  iterations = 0;
  /** The system prompt, fixed once the enabled tiers are known. */
  system = "";
  /** Where the run is, for the failure receipt. */
  phase = "run.started";
  /** The latest note the model wrote beside tool calls; the goal anchor restates it. */
  progressText: string | null = null;
  /** The tiers this run searches (skill retrieval types, mental models when the bank has any). */
  enabledTiers: Tier[] = [];
  /** Every query the model put in a tool call, in order (the missed-evidence probe searches them again). */
  readonly modelQueries: string[] = [];
  /** Searches whose every hit the model saw (probe.ts `searchKey`): the probe need not repeat them. */
  readonly seenInFull = new Set<string>();
  /** Searches as deep as the probe's whose hits the model did not all see (probe.ts `runSearches`). */
  readonly runSearches = new Map<string, ProbeHitText[]>();
  /**
   * The probe's searches started before the answer (probe.ts `QuestionSearches`): the question's,
   * before the first model call, and model queries' the run's own search cannot stand for.
   */
  questionSearches = new Map<string, Promise<ProbeHitText[]>>();
  /** Mental models whose freshness released forced retrieval; null while forcing. */
  released: string[] | null = null;

  constructor(
    readonly deps: ReflectDeps,
    readonly req: ParsedReflectRequest,
    readonly log: RunLog,
    readonly warnings: string[],
    readonly options: ReflectOptions,
  ) {}

  /** The wall clock and abort signal, as every awaited step of the run sees them. */
  get deadline(): DeadlineScope {
    return {
      wallClockMs: this.req.wallClockMs,
      elapsed: () => this.log.elapsed(),
      signal: this.options.signal,
      phase: () => this.phase,
    };
  }

  /** Records a warning for the result (once); true when it is new. */
  warn(message: string): boolean {
    if (this.warnings.includes(message)) return false;
    this.warnings.push(message);
    return true;
  }
}
