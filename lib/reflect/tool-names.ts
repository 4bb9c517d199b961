/**
 * Normalizes a tool name as emitted by the model. gpt-oss style models leak harmony framing into
 * the name (`functions.done`, `call=functions.done`, `to=functions.recall`,
 * `done<|channel|>commentary`); the part before the first `<|` is the tool the model meant. Tool
 * names are lower snake case, so the comparison is case-insensitive (`DONE` is `done`).
 */
export function normalizeToolName(raw: string): string {
  let name = raw.trim();
  const cut = name.indexOf("<|");
  if (cut >= 0) name = name.slice(0, cut);
  name = name.trim().toLowerCase();
  for (const prefix of ["call=", "to="]) if (name.startsWith(prefix)) name = name.slice(prefix.length);
  if (name.startsWith("functions.")) name = name.slice("functions.".length);
  return name.trim();
}
