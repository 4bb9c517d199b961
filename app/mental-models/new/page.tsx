import Link from "next/link";
import { saveMentalModelAction } from "@/app/actions/curation";
import { MentalModelEditor } from "@/components/editors/mental-model-editor";
import { queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { defaultBankId } from "@/lib/server/services/memory";

export const dynamic = "force-dynamic";

export default async function NewMentalModelPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const bankId = queryValue(params, "bank") ?? (await defaultBankId(await getAppDb()));
  if (!bankId) return <p className="text-slate-500">No bank yet.</p>;
  return (
    <div className="max-w-4xl">
      <nav className="mb-1 text-2xs text-slate-500">
        <Link href={`/mental-models?bank=${encodeURIComponent(bankId)}`} className="hover:underline">
          Mental models
        </Link>{" "}
        / new
      </nav>
      <h1 className="mb-3 font-semibold text-lg">New mental model</h1>
      <MentalModelEditor bankId={bankId} model={null} save={saveMentalModelAction} />
    </div>
  );
}
