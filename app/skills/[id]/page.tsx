import Link from "next/link";
import { notFound } from "next/navigation";
import { deleteSkillAction, saveSkillAction, trySkillAction } from "@/app/actions/curation";
import { DeleteSkillButton } from "@/components/editors/delete-skill-button";
import { SkillEditor } from "@/components/editors/skill-editor";
import { VersionHistory } from "@/components/editors/version-history";
import { decodeSegment, orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { requireBank } from "@/lib/server/services/banks";
import { defaultBankId } from "@/lib/server/services/memory";
import { getDeletedSkill, getSkillPage } from "@/lib/server/services/skills";

export const dynamic = "force-dynamic";

export default async function SkillPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const db = await getAppDb();
  const bankId = queryValue(query, "bank") ?? (await defaultBankId(db));
  if (!bankId) notFound();
  const page = await orNotFound(getSkillPage(db, bankId, decodeSegment(id)));
  if (!page) {
    const deleted = await orNotFound(getDeletedSkill(db, bankId, decodeSegment(id)));
    if (!deleted) notFound();
    return <DeletedSkill bankId={bankId} skill={deleted} />;
  }
  const bank = await orNotFound(requireBank(db, bankId));
  const { skill } = page;
  return (
    <div>
      <nav className="mb-1 text-2xs text-slate-500">
        <Link href={`/skills?bank=${encodeURIComponent(bankId)}`} className="hover:underline">
          Skills
        </Link>{" "}
        / <span className="font-mono">{skill.id}</span>
      </nav>
      <div className="mb-3 flex items-baseline gap-3">
        <h1 className="font-semibold text-lg" data-testid="skill-title">
          {skill.name}
        </h1>
        <span className="font-mono text-2xs text-slate-500" data-testid="skill-version">
          v{skill.version}
        </span>
        <Link
          href={`/runs?bank=${encodeURIComponent(bankId)}&skill=${encodeURIComponent(skill.name)}`}
          className="text-xs text-indigo-700 hover:underline"
        >
          runs with this skill
        </Link>
        <DeleteSkillButton bankId={bankId} id={skill.id} name={skill.name} remove={deleteSkillAction} />
      </div>
      <div className="grid grid-cols-1 gap-5 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="self-start rounded border border-slate-200 bg-white p-3">
          <SkillEditor
            key={skill.version}
            skill={skill}
            save={saveSkillAction}
            tryDraft={trySkillAction}
            permittedTeams={bank.permittedTeams}
          />
        </div>
        <VersionHistory versions={page.versions} current={skill.version} />
      </div>
    </div>
  );
}

/** A skill that was deleted: said as such (not "not found"), with the runs that used it. */
function DeletedSkill({ bankId, skill }: { bankId: string; skill: { id: string; name: string; lastVersion: number } }) {
  return (
    <div className="mx-auto mt-10 max-w-lg" data-testid="skill-deleted">
      <h1 className="font-semibold text-lg">
        Skill {skill.name} <span className="font-mono text-xs text-slate-500">{skill.id}</span> was deleted
      </h1>
      <p className="mt-2 text-[13px] text-slate-700">
        It was at version {skill.lastVersion}. New runs cannot use it; every run made with it keeps the exact skill it
        ran with, on its own page.
      </p>
      <p className="mt-3 flex gap-4 text-[13px]">
        <Link
          href={`/runs?bank=${encodeURIComponent(bankId)}&skill=${encodeURIComponent(skill.name)}`}
          className="text-indigo-700 underline"
        >
          Runs made with {skill.name}
        </Link>
        <Link href={`/skills?bank=${encodeURIComponent(bankId)}`} className="text-indigo-700 underline">
          The bank's skills
        </Link>
      </p>
    </div>
  );
}
