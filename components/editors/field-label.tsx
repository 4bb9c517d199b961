import type { ReactNode } from "react";

/** The small uppercase caption the forms use above a field, with its validation errors below. */
export function FieldLabel({ label, errors, children }: { label: string; errors?: string[]; children: ReactNode }) {
  return (
    <div>
      <span className="mb-1 block text-2xs text-slate-500 uppercase tracking-wide">{label}</span>
      {children}
      {errors?.length ? <p className="mt-0.5 text-2xs text-red-700">{errors.join("; ")}</p> : null}
    </div>
  );
}
