import { sha256Hex } from "./sha256";

/** JSON with object keys sorted recursively; arrays keep their order (order is meaningful). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** First 16 hex chars of sha256(canonical JSON): stable across key order, sensitive to values and types. */
export function fingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value)).slice(0, 16);
}

export function firstLine(text: string | null | undefined): string {
  return (text ?? "").split("\n", 1)[0]!.trim();
}

/** The ladder signature of one tool call: tool + args fingerprint + first error line (empty on success). */
export function callSignature(tool: string, args: unknown, error: string | null): string {
  return `${tool}:${fingerprint(args)}:${firstLine(error)}`;
}
