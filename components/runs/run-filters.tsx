import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import type { BankOption } from "@/lib/contracts/banks";
import { RUN_FLAGS, RUN_STATUSES } from "@/lib/reflect/domain";
import { words } from "@/lib/timeline/format";

/** A plain GET form: filters live in the URL, so every view of the list is linkable. */
export function RunFilters({ banks, values }: { banks: BankOption[]; values: Record<string, string> }) {
  const skills = [...new Set(banks.flatMap((b) => b.skills.map((s) => s.name)))].sort();
  return (
    <form className="mb-3 flex flex-wrap items-center gap-2" method="get" action="/runs" data-testid="run-filters">
      <Input
        type="search"
        name="q"
        defaultValue={values.q ?? ""}
        placeholder="Search questions and answers…"
        aria-label="Search questions and answers"
        className="w-72 py-1"
      />
      <Select name="bank" defaultValue={values.bank ?? ""} className="py-1" aria-label="Bank">
        <option value="">all banks</option>
        {banks.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </Select>
      <Select name="skill" defaultValue={values.skill ?? ""} className="py-1" aria-label="Skill">
        <option value="">all skills</option>
        {skills.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
      <Select name="status" defaultValue={values.status ?? ""} className="py-1" aria-label="Status">
        <option value="">any status</option>
        {RUN_STATUSES.map((s) => (
          <option key={s} value={s}>
            {words(s)}
          </option>
        ))}
      </Select>
      <Select name="badge" defaultValue={values.badge ?? ""} className="py-1" aria-label="Badge">
        <option value="">any badge</option>
        {RUN_FLAGS.map((f) => (
          <option key={f} value={f}>
            {f.replace("_", "-")}
          </option>
        ))}
      </Select>
      <Select name="kind" defaultValue={values.kind ?? ""} className="py-1" aria-label="Kind">
        <option value="">answers and judges</option>
        <option value="answer">answers only</option>
        <option value="judge">judge runs only</option>
      </Select>
      <Button size="md" type="submit" className="py-1">
        Filter
      </Button>
    </form>
  );
}
