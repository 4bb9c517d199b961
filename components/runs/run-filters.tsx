import type { BankOption } from "@/lib/contracts/banks";
import { RUN_FLAGS, RUN_STATUSES } from "@/lib/reflect/domain";
import { words } from "@/lib/timeline/format";

const select = "rounded border border-slate-300 bg-white px-2 py-1";

/** A plain GET form: filters live in the URL, so every view of the list is linkable. */
export function RunFilters({ banks, values }: { banks: BankOption[]; values: Record<string, string> }) {
  const skills = [...new Set(banks.flatMap((b) => b.skills.map((s) => s.name)))].sort();
  return (
    <form className="mb-3 flex flex-wrap items-center gap-2" method="get" action="/runs" data-testid="run-filters">
      <input
        type="search"
        name="q"
        defaultValue={values.q ?? ""}
        placeholder="Search questions and answers…"
        aria-label="Search questions and answers"
        className="w-72 rounded border border-slate-300 bg-white px-2 py-1"
      />
      <select name="bank" defaultValue={values.bank ?? ""} className={select} aria-label="Bank">
        <option value="">all banks</option>
        {banks.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
      <select name="skill" defaultValue={values.skill ?? ""} className={select} aria-label="Skill">
        <option value="">all skills</option>
        {skills.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <select name="status" defaultValue={values.status ?? ""} className={select} aria-label="Status">
        <option value="">any status</option>
        {RUN_STATUSES.map((s) => (
          <option key={s} value={s}>
            {words(s)}
          </option>
        ))}
      </select>
      <select name="badge" defaultValue={values.badge ?? ""} className={select} aria-label="Badge">
        <option value="">any badge</option>
        {RUN_FLAGS.map((f) => (
          <option key={f} value={f}>
            {f.replace("_", "-")}
          </option>
        ))}
      </select>
      <select name="kind" defaultValue={values.kind ?? ""} className={select} aria-label="Kind">
        <option value="">answers and judges</option>
        <option value="answer">answers only</option>
        <option value="judge">judge runs only</option>
      </select>
      <button type="submit" className="rounded border border-slate-300 bg-white px-3 py-1 hover:bg-slate-100">
        Filter
      </button>
    </form>
  );
}
