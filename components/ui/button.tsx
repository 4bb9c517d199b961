import type { ButtonHTMLAttributes, Ref } from "react";
import { cx } from "./classes";

/**
 * The inspector's button. `primary` for the one action a form exists for, `secondary` for the rest,
 * `ghost` for quiet tool-bar actions, `danger` for a confirmed destructive action and `danger-subtle`
 * for the control that asks for one, `link` for an action that reads as a link in running text (underlined, in the
 * colour around it unless given one), and
 * `bare` for a control that is not drawn as a button (a row, a chip, a tab, an inline toggle) and
 * styles itself. Every variant is `type="button"` unless told otherwise (a stray Enter never submits a
 * form), greys out when disabled, and when `busy` is disabled with `aria-busy` while work is under way.
 * The filled variants (primary, danger) have no border; beside a bordered button they take
 * `border border-indigo-600` (or red) so the two stand the same height.
 */
export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger" | "danger-subtle" | "link" | "bare";
export type ButtonSize = "xs" | "sm" | "md";

const VARIANT: Record<ButtonVariant, string> = {
  primary: "rounded bg-indigo-600 font-medium text-white hover:bg-indigo-700",
  secondary: "rounded border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  ghost: "rounded text-slate-600 hover:bg-slate-100 hover:text-slate-800",
  danger: "rounded bg-red-600 font-medium text-white hover:bg-red-700",
  "danger-subtle": "rounded border border-red-200 bg-white font-medium text-red-700 hover:bg-red-50",
  link: "underline",
  bare: "",
};

const SIZE: Record<ButtonSize, string> = {
  xs: "px-1.5 py-0.5 text-2xs",
  sm: "px-2.5 py-1 text-xs",
  md: "px-3 py-1.5",
};

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  /** Padding and text size; `link` and `bare` take none unless given one. */
  size?: ButtonSize;
  /** Work under way: disabled, and said so to assistive technology. */
  busy?: boolean;
  /** A toggle's state (aria-pressed). */
  pressed?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

/**
 * The class string a variant and size give (for a Radix trigger or link that must look like a button);
 * the caller's padding, text size or width replace the size's (see cx).
 */
export function buttonClass(variant: ButtonVariant = "secondary", size?: ButtonSize, extra = ""): string {
  const sized = size ?? (variant === "link" || variant === "bare" ? undefined : "sm");
  return cx([VARIANT[variant], sized ? SIZE[sized] : "", "disabled:opacity-50"].filter(Boolean).join(" "), extra);
}

export function Button({
  variant = "secondary",
  size,
  busy = false,
  pressed,
  disabled,
  className = "",
  type = "button",
  ref,
  ...rest
}: ButtonProps) {
  return (
    <button
      ref={ref}
      type={type}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      aria-pressed={pressed}
      className={buttonClass(variant, size, className)}
      {...rest}
    />
  );
}
