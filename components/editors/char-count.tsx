const thousands = (n: number) => n.toLocaleString("en-US");

/**
 * "1,234 / 4,000 characters" under a field, from the one set of limits (lib/contracts/fields.ts);
 * over the limit it says so in words and colour, before a save or run is refused.
 */
export function CharCount({ value, max, testId }: { value: string; max: number; testId?: string }) {
  const over = value.length > max;
  return (
    <p
      className={`mt-0.5 text-right text-[11px] tabular-nums ${over ? "font-medium text-red-700" : "text-slate-600"}`}
      data-testid={testId ?? "char-count"}
      data-over={over || undefined}
      aria-live={over ? "polite" : "off"}
    >
      {thousands(value.length)} / {thousands(max)} characters
      {over ? ` — ${thousands(value.length - max)} over the limit` : ""}
    </p>
  );
}
