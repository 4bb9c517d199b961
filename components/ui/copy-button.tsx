"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "./button";

/** Copies `text` to the clipboard and says so ("copied") for a moment, or that it could not. */
export function CopyButton({
  text,
  label,
  className = "",
  ...rest
}: {
  text: string | (() => string);
  /** What is copied, for the button's name: "Copy id", "Copy JSON". */
  label: string;
  className?: string;
  "data-testid"?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(typeof text === "function" ? text() : text);
      setState("copied");
    } catch {
      setState("failed");
    }
    timer.current = setTimeout(() => setState("idle"), 1500);
  };
  return (
    <Button
      size="xs"
      onClick={(e) => {
        e.stopPropagation();
        void copy();
      }}
      aria-label={label}
      data-state={state}
      className={`py-px text-slate-700 hover:bg-slate-100 ${className}`}
      {...rest}
    >
      <span aria-live="polite">{state === "copied" ? "copied ✓" : state === "failed" ? "copy failed" : "copy"}</span>
    </Button>
  );
}
