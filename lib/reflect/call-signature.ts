/**
 * The no-progress ladder's signature of one tool call (docs/engine.md#steering). It is the canonical call
 * itself, not a hash of it: identical calls give identical strings, and the timeline can show a
 * signature as it is ("recall:{"query":"launch"}:db down").
 */

/** JSON with object keys sorted recursively; arrays keep their order (order is meaningful). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function firstLine(text: string | null | undefined): string {
  return (text ?? "").split("\n", 1)[0]!.trim();
}

/**
 * The arguments as the ladder compares them: the free-text `reason` is left out (rewording it is
 * the same call) and `query` is trimmed and case-folded.
 */
function signatureArgs(args: unknown): unknown {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  const { reason: _reason, ...rest } = args as Record<string, unknown>;
  if (typeof rest.query === "string") rest.query = rest.query.trim().toLowerCase();
  return rest;
}

/** Tool name, canonical arguments (see signatureArgs) and the first error line (empty on success), joined by ":". */
export function callSignature(tool: string, args: unknown, error: string | null): string {
  return `${tool}:${canonicalJson(signatureArgs(args))}:${firstLine(error)}`;
}

/** The tool a signature names (what nudges and halts talk about). */
export function signatureTool(signature: string): string {
  return signature.split(":", 1)[0]!;
}
