import Link from "next/link";
import { notFound } from "next/navigation";
import { saveSuiteAction, startExperimentAction } from "@/app/actions/experiments";
import { ExperimentList } from "@/components/experiments/experiment-list";
import { PassRateHistory } from "@/components/experiments/pass-rate-history";
import { RunExperimentForm } from "@/components/experiments/run-experiment-form";
import { SuiteEditor } from "@/components/suites/suite-editor";
import { isAppError } from "@/lib/contracts/errors";
import { SuiteName } from "@/lib/contracts/suites";
import { decodeSegment, orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { listExperiments } from "@/lib/server/services/experiments";
import { defaultBankId } from "@/lib/server/services/memory";
import { listBankSkills } from "@/lib/server/services/skills";
import { getSuiteWithHistory } from "@/lib/server/services/suites";

export const dynamic = "force-dynamic";

export default async function SuitePage({
  params,
  searchParams,
}: {
  params: Promise<{ name: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const [{ name: raw }, query] = await Promise.all([params, searchParams]);
  const parsed = SuiteName.safeParse(decodeSegment(raw));
  if (!parsed.success) notFound();
  const name = parsed.data;
  const db = await getAppDb();
  const bankId = queryValue(query, "bank") ?? (await defaultBankId(db));
  if (!bankId) notFound();
  const suite = await getSuiteWithHistory(db, bankId, name).catch((err: unknown) => {
    if (isAppError(err, "not_found")) return null;
    throw err;
  });
  if (!suite && queryValue(query, "new") !== "1") notFound();
  const [skills, experiments] = await orNotFound(
    Promise.all([listBankSkills(db, bankId), listExperiments(db, { bankId, suite: name, limit: 20 })]),
  );
  const current = suite ?? { bankId, name, description: "", version: 0, questions: [], updatedAt: null, versions: [] };
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="font-semibold text-lg">Suite {name}</h1>
        <span className="font-mono text-2xs text-slate-600">{bankId}</span>
        <span className="text-xs text-slate-700">
          {current.version
            ? `version ${current.version} · ${current.questions.length} questions`
            : "new: save to create it"}
        </span>
        <a
          className="text-xs text-indigo-800 underline"
          href={`/api/v1/banks/${encodeURIComponent(bankId)}/suites/${encodeURIComponent(name)}/export`}
        >
          Export JSONL
        </a>
        <Link className="text-xs text-indigo-800 underline" href={`/suites?bank=${encodeURIComponent(bankId)}`}>
          All suites
        </Link>
      </div>
      {current.version > 0 && (
        <RunExperimentForm
          bankId={bankId}
          suite={name}
          skills={skills.map((s) => ({ name: s.name, version: s.version }))}
          baselines={experiments}
          start={startExperimentAction}
        />
      )}
      <SuiteEditor
        suite={current}
        versions={current.versions}
        skills={skills.map((s) => s.name)}
        save={saveSuiteAction}
      />
      <PassRateHistory experiments={experiments} />
      <section>
        <h2 className="mb-1 font-semibold">Experiments of this suite</h2>
        <ExperimentList experiments={experiments} />
      </section>
    </div>
  );
}
