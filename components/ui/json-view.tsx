"use client";

/**
 * Pretty, collapsible JSON: objects and arrays fold (native <details>, so keyboard and screen
 * readers get it for free), and a string that is itself JSON (a tool result's content, a call's
 * arguments) is shown parsed, not as one escaped line.
 */

/** A string holding a JSON object or array, parsed; anything else as it is. */
export function unwrapJson(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const t = value.trim();
  if (!(t.startsWith("{") && t.endsWith("}")) && !(t.startsWith("[") && t.endsWith("]"))) return value;
  try {
    return JSON.parse(t);
  } catch {
    return value;
  }
}

function Leaf({ value }: { value: unknown }) {
  if (typeof value === "string")
    return (
      <span className="whitespace-pre-wrap text-emerald-800 [overflow-wrap:anywhere]">{JSON.stringify(value)}</span>
    );
  if (typeof value === "number") return <span className="text-sky-800">{value}</span>;
  if (typeof value === "boolean" || value === null) return <span className="text-violet-800">{String(value)}</span>;
  return <span>{JSON.stringify(value)}</span>;
}

function Node({ name, value, depth, openDepth }: { name?: string; value: unknown; depth: number; openDepth: number }) {
  const v = unwrapJson(value);
  const key = name === undefined ? null : <span className="text-slate-700">{name}: </span>;
  if (v === null || typeof v !== "object") {
    return (
      <div className="pl-3 -indent-3">
        {key}
        <Leaf value={v} />
        {v !== value && <span className="ml-1 text-slate-500">(parsed)</span>}
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
  const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0)
    return (
      <div>
        {key}
        {open}
        {close}
      </div>
    );
  return (
    // Each node reads its own <details>: `group-open:` would match any open ancestor, and a closed
    // node inside an open one would look open and empty.
    <details open={depth < openDepth} data-testid="json-node">
      <summary className="cursor-pointer list-none marker:hidden select-none hover:bg-slate-100">
        <span className="inline-block w-3 text-slate-600 [details[open]>summary>&]:rotate-90" aria-hidden="true">
          ▸
        </span>
        {key}
        {open}
        <span className="text-slate-500 [details[open]>summary>&]:hidden">
          {" "}
          {entries.length} {Array.isArray(v) ? "items" : "keys"} {close}
        </span>
        {v !== value && <span className="ml-1 text-slate-500">(parsed from a string)</span>}
      </summary>
      <div className="ml-3 border-l border-slate-200 pl-1">
        {entries.map(([k, x]) => (
          <Node key={k} name={Array.isArray(v) ? undefined : k} value={x} depth={depth + 1} openDepth={openDepth} />
        ))}
      </div>
      <div>{close}</div>
    </details>
  );
}

export function JsonView({ value, openDepth = 2, label }: { value: unknown; openDepth?: number; label: string }) {
  return (
    <section
      className="rounded border border-slate-200 bg-slate-50 p-2 font-mono text-2xs leading-relaxed text-slate-900"
      data-testid="json-view"
      aria-label={label}
    >
      <Node value={value} depth={0} openDepth={openDepth} />
    </section>
  );
}
