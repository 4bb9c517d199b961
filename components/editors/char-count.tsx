const thousands = (n: number) => n.toLocaleString("en-US");

/**
 * "1,234 / 4,000 characters" under a field, from the one set of limits (lib/contracts/fields.ts);
 * over the limit it says so in words and colour, before a save or run is refused.
 */
export function CharCount({ value, max, testId }: { value: string; max: number; testId?: string }) {
  const over = value.length > max;
  return (
    <p
      className={`mt-0.5 text-right text-2xs tabular-nums ${over ? "font-medium text-red-700" : "text-slate-600"}`}
      data-testid={testId ?? "char-count"}
      data-over={over || undefined}
      aria-live={over ? "polite" : "off"}
    >
      {thousands(value.length)} / {thousands(max)} characters
      {over ? ` — ${thousands(value.length - max)} over the limit` : ""}
    </p>
  );
}

/** A field checked against its limit before a save or run. */
export interface LimitedField {
  label: string;
  value: string;
  max: number;
}

/** Why the form cannot be sent yet: the fields over their limit, in words; null when none is. */
export function overLimitReason(fields: readonly LimitedField[], verb: string): string | null {
  const over = fields.filter((f) => f.value.length > f.max);
  if (over.length === 0) return null;
  const parts = over.map((f) => {
    const n = f.value.length - f.max;
    return `${f.label} is ${thousands(n)} ${n === 1 ? "character" : "characters"} over the limit`;
  });
  return `Shorten it to ${verb}: ${parts.join("; ")}.`;
}

/** The reason beside a disabled Submit; its id is the button's aria-describedby. */
export function OverLimitNote({ id, reason }: { id: string; reason: string | null }) {
  if (!reason) return null;
  return (
    <p id={id} className="text-xs text-red-700" data-testid="over-limit-reason">
      {reason}
    </p>
  );
}
