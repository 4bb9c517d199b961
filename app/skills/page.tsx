import { createSkillAction } from "@/app/actions/curation";
import { NewSkillForm } from "@/components/editors/new-skill-form";
import { SkillTable } from "@/components/editors/skill-table";
import { orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { defaultBankId } from "@/lib/server/services/memory";
import { listBankSkills } from "@/lib/server/services/skills";

export const dynamic = "force-dynamic";

export default async function SkillsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const db = await getAppDb();
  const bankId = queryValue(params, "bank") ?? (await defaultBankId(db));
  if (!bankId)
    return <p className="text-slate-500">No bank yet: import one with `npm run cli -- import bundle.json`.</p>;
  const skills = await orNotFound(listBankSkills(db, bankId));
  return (
    <div>
      <div className="mb-3 flex items-baseline gap-3">
        <h1 className="font-semibold text-lg">Skills</h1>
        <span className="font-mono text-2xs text-slate-500">{bankId}</span>
        <span className="text-2xs text-slate-500">
          Per-use-case missions: what reflect is asked to do, how it retrieves, and how it answers.
        </span>
      </div>
      <NewSkillForm bankId={bankId} create={createSkillAction} />
      <SkillTable bankId={bankId} skills={skills} />
    </div>
  );
}
