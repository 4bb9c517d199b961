import Link from "next/link";
import { notFound } from "next/navigation";
import { deleteSkillAction, saveSkillAction, trySkillAction } from "@/app/actions/curation";
import { DeleteSkillButton } from "@/components/editors/delete-skill-button";
import { SkillEditor } from "@/components/editors/skill-editor";
import { VersionHistory } from "@/components/editors/version-history";
import { requireBank } from "@/lib/server/banks";
import { getAppDb } from "@/lib/server/db";
import { defaultBankId } from "@/lib/server/memory";
import { getSkillPage } from "@/lib/server/skills";

export const dynamic = "force-dynamic";

export default async function SkillPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string>>;
}) {
  const [{ id }, query] = await Promise.all([params, searchParams]);
  const db = await getAppDb();
  const bankId = query.bank ?? (await defaultBankId(db));
  if (!bankId) notFound();
  const page = await getSkillPage(db, bankId, decodeURIComponent(id));
  if (!page) notFound();
  const bank = await requireBank(db, bankId);
  const { skill } = page;
  return (
    <div>
      <nav className="mb-1 text-[11px] text-slate-500">
        <Link href={`/skills?bank=${encodeURIComponent(bankId)}`} className="hover:underline">
          Skills
        </Link>{" "}
        / <span className="font-mono">{skill.id}</span>
      </nav>
      <div className="mb-3 flex items-baseline gap-3">
        <h1 className="font-semibold text-lg" data-testid="skill-title">
          {skill.name}
        </h1>
        <span className="font-mono text-[11px] text-slate-500" data-testid="skill-version">
          v{skill.version}
        </span>
        <Link
          href={`/runs?bank=${encodeURIComponent(bankId)}&skill=${encodeURIComponent(skill.name)}`}
          className="text-[12px] text-indigo-700 hover:underline"
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
