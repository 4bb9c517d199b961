"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { suiteHref } from "@/lib/contracts/experiments";

/** Names a new suite and opens its editor; it is created on the first save. */
export function NewSuiteForm({ bankId }: { bankId: string }) {
  const router = useRouter();
  const [name, setName] = useState("");
  return (
    <form
      className="flex items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) router.push(`${suiteHref(bankId, name.trim())}&new=1`);
      }}
    >
      <label className="text-xs text-slate-700">
        New suite
        <input
          className="block rounded border border-slate-300 bg-white px-1.5 py-1 text-xs text-slate-900"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="release-gate"
          pattern="[A-Za-z0-9][A-Za-z0-9_.:\-]*"
          title="letters, digits and _ . : - (starting with a letter or digit)"
        />
      </label>
      <button type="submit" className="rounded border border-slate-300 bg-white px-2.5 py-1 text-xs text-slate-800">
        Create
      </button>
    </form>
  );
}
