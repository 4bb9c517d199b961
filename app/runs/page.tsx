import Link from "next/link";
import { RunFilters } from "@/components/runs/run-filters";
import { RunTable } from "@/components/runs/run-table";
import { ListRunsQuery } from "@/lib/contracts/runs";
import { bankOptions } from "@/lib/server/banks";
import { getAppDb } from "@/lib/server/db";
import { listRunItems } from "@/lib/server/runs";

export const dynamic = "force-dynamic";

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const params = await searchParams;
  const db = await getAppDb();
  // The filter form sends every field; an empty one means "any".
  const parsed = ListRunsQuery.safeParse(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== "")));
  const filters = parsed.success ? parsed.data : {};
  const [page, banks] = await Promise.all([listRunItems(db, filters), bankOptions(db)]);
  const next = page.nextCursor ? new URLSearchParams({ ...params, cursor: page.nextCursor }) : null;
  return (
    <div>
      <div className="mb-3 flex items-center gap-3">
        <h1 className="font-semibold text-lg">Runs</h1>
        <Link href="/runs/new" className="rounded bg-indigo-600 px-3 py-1 text-white hover:bg-indigo-700">
          New run
        </Link>
      </div>
      <RunFilters banks={banks} values={params} />
      <RunTable runs={page.runs} />
      <div className="mt-3 flex gap-3">
        {params.cursor ? (
          <Link href="/runs" className="text-indigo-700 hover:underline">
            ← Newest
          </Link>
        ) : null}
        {next ? (
          <Link href={`/runs?${next}`} className="text-indigo-700 hover:underline" data-testid="runs-next-page">
            Older runs →
          </Link>
        ) : null}
      </div>
    </div>
  );
}
