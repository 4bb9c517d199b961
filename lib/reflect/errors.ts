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

/** Thrown by a model port; `retryable` is informational (the port already retried). */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly model: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ModelCallError";
  }
}
