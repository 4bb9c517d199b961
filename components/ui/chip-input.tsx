"use client";

import { useState } from "react";
import { Button } from "./button";
import { useFieldControl } from "./field";

/** A form control of the kit: free words as removable chips: Enter or comma adds, Backspace in the empty box removes the last. */
export function ChipInput({
  label,
  values,
  onChange,
  placeholder,
  testId,
}: {
  label: string;
  values: readonly string[];
  onChange: (values: string[]) => void;
  placeholder?: string;
  testId: string;
}) {
  const [text, setText] = useState("");
  const field = useFieldControl();
  const add = (raw: string) => {
    const words = raw
      .split(",")
      .map((w) => w.trim())
      .filter((w) => w && !values.includes(w));
    if (words.length) onChange([...values, ...new Set(words)]);
    setText("");
  };
  return (
    <div
      className="flex min-h-[30px] flex-wrap items-center gap-1 rounded border border-slate-300 bg-white px-1.5 py-1"
      data-testid={testId}
    >
      {values.map((v) => (
        <span
          key={v}
          className="inline-flex items-center gap-0.5 rounded bg-slate-100 py-px pr-0.5 pl-1.5 text-xs text-slate-700"
          data-testid="chip"
        >
          {v}
          <Button
            variant="bare"
            className="rounded px-1 text-slate-500 hover:bg-slate-200 hover:text-slate-700"
            aria-label={`Remove ${v}`}
            onClick={() => onChange(values.filter((x) => x !== v))}
          >
            ×
          </Button>
        </span>
      ))}
      {/* The text box inside the chip list's own bordered box: drawn without a border of its own. */}
      <input
        className="min-w-[8ch] flex-1 bg-transparent px-1 text-[13px] outline-none"
        aria-label={label}
        id={field?.id}
        aria-describedby={field?.describedBy}
        aria-invalid={field?.invalid || undefined}
        value={text}
        placeholder={values.length ? "" : placeholder}
        onChange={(e) => (e.target.value.endsWith(",") ? add(e.target.value) : setText(e.target.value))}
        onBlur={() => text.trim() && add(text)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            add(text);
          } else if (e.key === "Backspace" && !text && values.length) {
            onChange(values.slice(0, -1));
          }
        }}
      />
    </div>
  );
}
