import type { FailedModelRequest } from "./ports";
import { wordsOf } from "./terms";

/** Thrown by a memory port when the run asks for a team scope its bank does not permit. */
export class ScopeNotPermittedError extends Error {
  readonly code = "scope_not_permitted";
  constructor(
    readonly scope: string,
    readonly bankId: string,
  ) {
    super(`scope ${scope} is not permitted for bank ${bankId}`);
    this.name = "ScopeNotPermittedError";
  }
}

/**
 * Thrown by a memory port when a query holds nothing it can search for: no search terms (only
 * stop words such as "what", "is", "it", or no letters at all) and no semantic search configured.
 * Nothing was searched, so "no relevant memories" would be a claim about a bank nobody read.
 */
export class NothingToSearchError extends Error {
  readonly code = "nothing_to_search";
  constructor(readonly query: string) {
    const shown = query.length > 80 ? `${query.slice(0, 80)}…` : query;
    const words = wordsOf(query);
    const why =
      words.length === 0
        ? "no letters or digits to search for"
        : `no words to search for (only common words: ${words
            .slice(0, 6)
            .map((w) => `"${w}"`)
            .join(", ")}${words.length > 6 ? ", …" : ""})`;
    super(`the query "${shown}" has ${why}, so nothing was searched; search with specific words: names, topics, dates`);
    this.name = "NothingToSearchError";
  }
}

/** Thrown by a model port; `retryable` is informational (the port already retried). */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly model: string,
    readonly status?: number,
    /** The requests that failed before this one gave up (SDK retries, tool-choice downgrades). */
    readonly failedRequests: FailedModelRequest[] = [],
  ) {
    super(message);
    this.name = "ModelCallError";
  }
}
