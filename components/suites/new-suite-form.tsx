"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
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
        <Input
          size="sm"
          className="block"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="release-gate"
          pattern="[A-Za-z0-9][A-Za-z0-9_.:\-]*"
          title="letters, digits and _ . : - (starting with a letter or digit)"
        />
      </label>
      <Button type="submit">Create</Button>
    </form>
  );
}
