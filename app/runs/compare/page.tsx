import { CompareView } from "@/components/compare/compare-view";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { isAppError } from "@/lib/contracts/errors";
import type { RunListItem } from "@/lib/contracts/runs";
import { getAppDb } from "@/lib/server/runtime/db";
import { getComparison } from "@/lib/server/services/rerun";
import { listRunItems } from "@/lib/server/services/runs";

export const dynamic = "force-dynamic";

/**
 * The run picker: each side is a search box over the recent runs (question or id), with the
 * browser's own suggestion list; a run id from anywhere else can be pasted too.
 */
function PickRuns({ a, b, message, recent }: { a?: string; b?: string; message?: string; recent: RunListItem[] }) {
  return (
    <form className="flex max-w-3xl flex-wrap items-end gap-2 rounded border border-slate-200 bg-white p-3 text-[13px]">
      {message && (
        <p className="w-full text-red-700" role="alert">
          {message}
        </p>
      )}
      {(["a", "b"] as const).map((name) => (
        <label key={name} className="min-w-[12rem] flex-1">
          <span className="mb-1 block text-2xs uppercase tracking-wide text-slate-500">Run {name.toUpperCase()}</span>
          <Input
            size="sm"
            name={name}
            defaultValue={name === "a" ? a : b}
            list="recent-runs"
            required
            autoComplete="off"
            data-testid={`compare-pick-${name}`}
            className="w-full px-2 font-mono"
            placeholder="search a question, or paste run_…"
          />
        </label>
      ))}
      <Button variant="primary" size="md" type="submit" data-testid="compare-pick-submit">
        Compare
      </Button>
      <datalist id="recent-runs">
        {recent.map((r) => (
          <option
            key={r.id}
            value={r.id}
            label={`${r.question} · ${r.status} · ${r.createdAt.slice(0, 16).replace("T", " ")}`}
          />
        ))}
      </datalist>
      <p className="w-full text-2xs text-slate-600">
        Or tick two runs in the{" "}
        <a href="/runs" className="underline">
          runs list
        </a>
        .
      </p>
    </form>
  );
}

export default async function ComparePage({ searchParams }: { searchParams: Promise<{ a?: string; b?: string }> }) {
  const { a, b } = await searchParams;
  let found: Awaited<ReturnType<typeof getComparison>> | null = null;
  let message: string | undefined;
  const db = await getAppDb();
  if (a && b) {
    try {
      found = await getComparison(db, a, b);
    } catch (err) {
      if (!isAppError(err, "not_found")) throw err;
      message = err.message;
    }
  }
  return (
    <div className="flex flex-col gap-3">
      <h1 className="text-lg font-semibold">Compare runs</h1>
      {found ? (
        <CompareView comparison={found.comparison} replay={found.replayDivergence} />
      ) : (
        <PickRuns a={a} b={b} message={message} recent={(await listRunItems(db, { limit: 100 })).runs} />
      )}
    </div>
  );
}
