"use client";

import type { InputHTMLAttributes, Ref, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { cx } from "./classes";
import { useFieldControl } from "./field";

/**
 * Text controls: `md` for the editors' forms (13px, roomy), `sm` for the compact forms in tables
 * and panels (12px). Width and margins come from the caller's className; its padding or text size
 * replace the size's (see cx). Inside a Field the
 * control takes the Field's id, description and invalid state unless given its own.
 */
export type ControlSize = "sm" | "md";

const CONTROL: Record<ControlSize, string> = {
  md: "rounded border border-slate-300 bg-white px-2 py-1.5 text-[13px]",
  sm: "rounded border border-slate-300 bg-white px-1.5 py-1 text-xs text-slate-900",
};

/** The class string of a text control of a size (for a control the kit does not wrap). */
export function controlClass(size: ControlSize = "md", extra = ""): string {
  return cx(`${CONTROL[size]} aria-[invalid=true]:border-red-400`, extra);
}

function useWired(props: { id?: string; "aria-describedby"?: string; "aria-invalid"?: unknown }) {
  const field = useFieldControl();
  return {
    id: props.id ?? field?.id,
    "aria-describedby": props["aria-describedby"] ?? field?.describedBy,
    "aria-invalid": (props["aria-invalid"] as boolean | undefined) ?? (field?.invalid || undefined),
  };
}

type Sized = { size?: ControlSize };

export function Input({
  size = "md",
  className,
  ref,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, "size"> & Sized & { ref?: Ref<HTMLInputElement> }) {
  const wired = useWired(rest);
  return <input ref={ref} {...rest} {...wired} className={controlClass(size, className)} />;
}

export function Textarea({
  size = "md",
  className,
  ref,
  ...rest
}: TextareaHTMLAttributes<HTMLTextAreaElement> & Sized & { ref?: Ref<HTMLTextAreaElement> }) {
  const wired = useWired(rest);
  return <textarea ref={ref} {...rest} {...wired} className={controlClass(size, className)} />;
}

/** A native select, styled as the other controls (the browser's own list keeps it accessible). */
export function Select({
  size = "md",
  className,
  ref,
  ...rest
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "size"> & Sized & { ref?: Ref<HTMLSelectElement> }) {
  const wired = useWired(rest);
  return <select ref={ref} {...rest} {...wired} className={controlClass(size, className)} />;
}

/**
 * A checkbox or radio: not a text control, so no border or padding of its own; it still takes a
 * Field's wiring when inside one.
 */
export function Check({
  type = "checkbox",
  ref,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type"> & { type?: "checkbox" | "radio"; ref?: Ref<HTMLInputElement> }) {
  return <input ref={ref} type={type} {...rest} />;
}
