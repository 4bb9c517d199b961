import Link from "next/link";
import { ExperimentList } from "@/components/experiments/experiment-list";
import { NewSuiteForm } from "@/components/suites/new-suite-form";
import { suiteHref } from "@/lib/contracts/experiments";
import { orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { listExperiments } from "@/lib/server/services/experiments";
import { defaultBankId } from "@/lib/server/services/memory";
import { listBankSuites } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export default async function SuitesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const db = await getAppDb();
  const bankId = queryValue(params, "bank") ?? (await defaultBankId(db));
  if (!bankId)
    return <p className="text-slate-700">No bank yet: import one with `npm run cli -- import bundle.json`.</p>;
  const [suites, experiments] = await orNotFound(
    Promise.all([listBankSuites(db, bankId), listExperiments(db, { bankId, limit: 20 })]),
  );
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="font-semibold text-lg">Question suites</h1>
        <span className="font-mono text-2xs text-slate-600">{bankId}</span>
        <span className="text-xs text-slate-700">
          Versioned questions with expectations. Run one as an experiment to prove a memory change broke nothing.
        </span>
      </div>
      <table className="w-full border-collapse text-[13px]" data-testid="suite-list">
        <thead>
          <tr className="border-b border-slate-300 text-left text-xs text-slate-700">
            <th className="py-1 pr-3">Suite</th>
            <th className="py-1 pr-3">Description</th>
            <th className="py-1 pr-3 text-right">Questions</th>
            <th className="py-1 pr-3 text-right">Version</th>
          </tr>
        </thead>
        <tbody>
          {suites.map((s) => (
            <tr key={s.name} className="border-b border-slate-100">
              <td className="py-1 pr-3">
                <Link className="font-medium text-indigo-800 underline" href={suiteHref(bankId, s.name)}>
                  {s.name}
                </Link>
              </td>
              <td className="py-1 pr-3 text-slate-700">{s.description || "—"}</td>
              <td className="py-1 pr-3 text-right tabular-nums">{s.questionCount}</td>
              <td className="py-1 pr-3 text-right tabular-nums">v{s.version}</td>
            </tr>
          ))}
          {suites.length === 0 && (
            <tr>
              <td colSpan={4} className="py-2 text-slate-700">
                No suites yet: create one below, or use "Add to suite" on any run.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <NewSuiteForm bankId={bankId} />
      <section>
        <h2 className="mb-1 font-semibold">Recent experiments</h2>
        <ExperimentList experiments={experiments} showSuite />
      </section>
    </div>
  );
}
