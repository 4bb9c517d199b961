import Link from "next/link";
import { LiveRunTable } from "@/components/runs/live-run-table";
import { RunFilters } from "@/components/runs/run-filters";
import { isAppError } from "@/lib/contracts/errors";
import { allowedParams, readQuery } from "@/lib/contracts/query";
import { ListRunsQuery } from "@/lib/contracts/runs";
import { getAppDb } from "@/lib/server/runtime/db";
import { bankOptions } from "@/lib/server/services/banks";
import { listRunItems } from "@/lib/server/services/runs";

export const dynamic = "force-dynamic";

type Params = Record<string, string | string[] | undefined>;

/**
 * The list's query from the URL: the valid fields, the names of those that are not (a value that
 * fails its check, or a field given twice), parameters that are no filter of this list, and what the
 * bad ones may be. The page says which it ignored, never silently.
 */
function readListQuery(params: Params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    // The filter form sends every field; an empty one means "any".
    for (const one of Array.isArray(value) ? value : [value]) if (one) search.append(key, one);
  }
  const read = readQuery(search, ListRunsQuery);
  const parsed = ListRunsQuery.safeParse(read.values);
  if (parsed.success) return { query: parsed.data, ignored: read.repeated, unknown: read.unknown, hints: [] };
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  const hints = parsed.error.issues.flatMap((i) =>
    i.code === "invalid_value" ? [`${String(i.path[0])} is one of ${i.values.join(", ")}`] : [],
  );
  const rest = Object.fromEntries(Object.entries(read.values).filter(([k]) => !bad.has(k)));
  return {
    query: ListRunsQuery.safeParse(rest).data ?? {},
    ignored: [...read.repeated, ...bad],
    unknown: read.unknown,
    hints,
  };
}

async function readPage(db: Awaited<ReturnType<typeof getAppDb>>, query: ReturnType<typeof readListQuery>["query"]) {
  try {
    return { page: await listRunItems(db, query), badCursor: false };
  } catch (err) {
    // A cursor this server did not give out (edited, or from another database): the newest page.
    if (!isAppError(err, "invalid_input") || !query.cursor) throw err;
    return { page: await listRunItems(db, { ...query, cursor: undefined }), badCursor: true };
  }
}

export default async function RunsPage({ searchParams }: { searchParams: Promise<Params> }) {
  const raw = await searchParams;
  const db = await getAppDb();
  const read = readListQuery(raw);
  // Taken before the list is read: the live table asks for every change after it.
  const since = Date.now();
  const [{ page, badCursor }, banks] = await Promise.all([readPage(db, read.query), bankOptions(db)]);
  const ignored = [...(badCursor ? [...read.ignored, "cursor"] : read.ignored), ...read.unknown];
  const { cursor: asked, limit, ...filters } = read.query;
  const cursor = badCursor ? undefined : asked;
  // The URL as the list reads it: what was ignored is not carried into the next page's link.
  const params: Record<string, string> = Object.fromEntries(
    Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string" && !ignored.includes(e[0])),
  );
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
      {ignored.length > 0 ? (
        <p
          role="status"
          data-testid="runs-ignored"
          className="mb-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900"
        >
          Ignored {ignored.length === 1 ? "a parameter" : "parameters"} that {ignored.length === 1 ? "is" : "are"} not
          valid here: {ignored.join(", ")}.{" "}
          {read.unknown.length > 0 ? `The list filters by ${allowedParams(ListRunsQuery).join(", ")}. ` : null}
          {read.hints.length > 0 ? `${read.hints.join("; ")}. ` : null}
          {ignored.includes("cursor")
            ? "This page link is not one this server gave out; showing the newest runs."
            : null}
        </p>
      ) : null}
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
