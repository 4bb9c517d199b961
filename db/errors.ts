/** Optimistic concurrency: the caller edited version `expectedVersion`, but the record moved on. */
export class ConflictError<T> extends Error {
  readonly code = "conflict";
  constructor(
    message: string,
    /** The record as it is now (null when it was deleted meanwhile). */
    readonly current: T | null,
  ) {
    super(message);
    this.name = "ConflictError";
  }
}

export class NotFoundError extends Error {
  readonly code = "not_found";
  constructor(message: string) {
    super(message);
    this.name = "NotFoundError";
  }
}
