import Link from "next/link";
import { LiveRunTable } from "@/components/runs/live-run-table";
import { RunFilters } from "@/components/runs/run-filters";
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
  const { cursor, limit, ...filters } = parsed.success ? parsed.data : {};
  // Taken before the list is read: the live table asks for every change after it.
  const since = Date.now();
  const [page, banks] = await Promise.all([listRunItems(db, { ...filters, cursor, limit }), bankOptions(db)]);
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
      <LiveRunTable
        // Another filter or page is another list: start it from what the server read.
        key={new URLSearchParams(params).toString()}
        initialRuns={page.runs}
        since={since}
        filters={filters}
        pageCursor={cursor}
        hasOlder={page.nextCursor !== null}
      />
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
