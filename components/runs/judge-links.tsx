import Link from "next/link";

/** On a run page: the run a judge run graded, or the judge run that graded this run and its verdict. */
export function JudgeLinks({
  judgeOf,
  judgedBy,
}: {
  judgeOf: string | null;
  judgedBy: { runId: string; verdict: string } | null;
}) {
  if (!judgeOf && !judgedBy) return null;
  return (
    <p className="text-xs text-slate-800" data-testid="judge-links">
      {judgeOf && (
        <>
          This run is an LLM judge&apos;s grading of run{" "}
          <Link className="font-mono text-indigo-800 underline" href={`/runs/${encodeURIComponent(judgeOf)}`}>
            {judgeOf}
          </Link>
          : its prompt and verdict are below.
        </>
      )}
      {judgedBy && (
        <>
          Judged by run{" "}
          <Link className="font-mono text-indigo-800 underline" href={`/runs/${encodeURIComponent(judgedBy.runId)}`}>
            {judgedBy.runId}
          </Link>
          : <span data-testid="judge-verdict">{judgedBy.verdict}</span>
        </>
      )}
    </p>
  );
}
