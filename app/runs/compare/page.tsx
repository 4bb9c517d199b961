import { CompareView } from "@/components/compare/compare-view";
import { isAppError } from "@/lib/contracts/errors";
import { getAppDb } from "@/lib/server/db";
import { getComparison } from "@/lib/server/rerun";

export const dynamic = "force-dynamic";

function PickRuns({ a, b, message }: { a?: string; b?: string; message?: string }) {
  return (
    <form className="flex max-w-3xl flex-wrap items-end gap-2 rounded border border-slate-200 bg-white p-3 text-[13px]">
      {message && (
        <p className="w-full text-red-700" role="alert">
          {message}
        </p>
      )}
      {(["a", "b"] as const).map((name) => (
        <label key={name} className="flex-1">
          <span className="mb-1 block text-[11px] uppercase tracking-wide text-slate-500">
            Run {name.toUpperCase()}
          </span>
          <input
            name={name}
            defaultValue={name === "a" ? a : b}
            className="w-full rounded border border-slate-300 px-2 py-1 font-mono text-[12px]"
            placeholder="run_…"
          />
        </label>
      ))}
      <button type="submit" className="rounded bg-indigo-600 px-3 py-1.5 font-medium text-white hover:bg-indigo-700">
        Compare
      </button>
    </form>
  );
}

export default async function ComparePage({ searchParams }: { searchParams: Promise<{ a?: string; b?: string }> }) {
  const { a, b } = await searchParams;
  let found: Awaited<ReturnType<typeof getComparison>> | null = null;
  let message: string | undefined;
  if (a && b) {
    try {
      found = await getComparison(await getAppDb(), a, b);
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
        <PickRuns a={a} b={b} message={message} />
      )}
    </div>
  );
}
