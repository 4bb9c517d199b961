/**
 * Normalizes a tool name as emitted by the model. gpt-oss style models leak harmony framing into
 * the name (`functions.done`, `call=functions.done`, `done<|channel|>commentary`); the part before
 * the first `<|` is the tool the model meant.
 */
export function normalizeToolName(raw: string): string {
  let name = raw.trim();
  const cut = name.indexOf("<|");
  if (cut >= 0) name = name.slice(0, cut);
  name = name.trim();
  if (name.startsWith("call=")) name = name.slice("call=".length);
  if (name.startsWith("functions.")) name = name.slice("functions.".length);
  return name.trim();
}
