"use client";

import { createContext, type ReactNode, useContext, useId } from "react";

/**
 * What a Field tells the control inside it: its id (the label's `for`), the ids that describe it
 * (hint, counter, error) and whether it is invalid. Input, Textarea and Select read it, so a control
 * inside a Field is labelled, described and marked invalid without the caller wiring ids.
 */
export interface FieldControl {
  id: string;
  describedBy: string | undefined;
  invalid: boolean;
}

const FieldContext = createContext<FieldControl | null>(null);

/** The Field around a control, if any (Input, Textarea and Select use it). */
export function useFieldControl(): FieldControl | null {
  return useContext(FieldContext);
}

/**
 * A labelled form field: the small uppercase caption above, the control, then a hint, a counter
 * (CharCount) and the validation error below. The label is a real `<label for>`; hint, counter and
 * error are the control's `aria-describedby`, and an error sets `aria-invalid`.
 */
export function Field({
  label,
  hint,
  counter,
  error,
  id,
  group = false,
  className,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  /** Shown under the control, e.g. a CharCount; part of its description. */
  counter?: ReactNode;
  /** One message or several (joined with "; "); none or empty when the field is valid. */
  error?: string | readonly string[] | null;
  /** The control's id, when the caller needs to know it; one is made otherwise. */
  id?: string;
  /** Several controls under one caption (checkboxes): a fieldset with a legend, not a label. */
  group?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const made = useId();
  const controlId = id ?? `field-${made}`;
  const message = typeof error === "string" ? error : error?.length ? error.join("; ") : "";
  const hintId = hint ? `${controlId}-hint` : undefined;
  const counterId = counter ? `${controlId}-counter` : undefined;
  const errorId = message ? `${controlId}-error` : undefined;
  const describedBy = [hintId, counterId, errorId].filter(Boolean).join(" ") || undefined;
  const caption = "mb-1 block text-2xs text-slate-500 uppercase tracking-wide";
  const Outer = group ? "fieldset" : "div";
  return (
    <Outer className={className} aria-describedby={group ? describedBy : undefined}>
      {group ? (
        <legend className={caption}>{label}</legend>
      ) : (
        <label htmlFor={controlId} className={caption}>
          {label}
        </label>
      )}
      {group ? (
        children
      ) : (
        <FieldContext.Provider value={{ id: controlId, describedBy, invalid: Boolean(message) }}>
          {children}
        </FieldContext.Provider>
      )}
      {hint ? (
        <p id={hintId} className="mt-0.5 text-2xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {counter ? <div id={counterId}>{counter}</div> : null}
      {message ? (
        <p id={errorId} className="mt-0.5 text-2xs text-red-700">
          {message}
        </p>
      ) : null}
    </Outer>
  );
}
