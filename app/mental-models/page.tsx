import Link from "next/link";
import { MentalModelTable } from "@/components/editors/mental-model-table";
import { orNotFound, queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { defaultBankId } from "@/lib/server/services/memory";
import { listMentalModelRows } from "@/lib/server/services/mental-models";

export const dynamic = "force-dynamic";

export default async function MentalModelsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const db = await getAppDb();
  const bankId = queryValue(params, "bank") ?? (await defaultBankId(db));
  if (!bankId)
    return <p className="text-slate-500">No bank yet: import one with `npm run cli -- import bundle.json`.</p>;
  const rows = await orNotFound(listMentalModelRows(db, bankId));
  return (
    <div>
      <div className="mb-3 flex items-baseline gap-3">
        <h1 className="font-semibold text-lg">Mental models</h1>
        <span className="font-mono text-2xs text-slate-500">{bankId}</span>
        <span className="text-2xs text-slate-500">
          Curated summaries reflect reads first; a stale or unusable one sends it to the lower tiers.
        </span>
        <Link
          href={`/mental-models/new?bank=${encodeURIComponent(bankId)}`}
          className="ml-auto rounded bg-indigo-600 px-3 py-1 font-medium text-xs text-white hover:bg-indigo-700"
          data-testid="new-model"
        >
          New mental model
        </Link>
      </div>
      <MentalModelTable bankId={bankId} rows={rows} />
    </div>
  );
}
