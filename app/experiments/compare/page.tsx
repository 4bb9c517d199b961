import { CompareView } from "@/components/experiments/compare-view";
import { isAppError } from "@/lib/contracts/errors";
import { CompareQuery } from "@/lib/contracts/experiments";
import { getAppDb } from "@/lib/server/runtime/db";
import { getExperimentComparison } from "@/lib/server/services/experiments";

export const dynamic = "force-dynamic";

export default async function CompareExperimentsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string>>;
}) {
  const parsed = CompareQuery.safeParse(await searchParams);
  if (!parsed.success) {
    return <p className="text-slate-800">Pick two experiments: /experiments/compare?base=…&amp;head=…</p>;
  }
  const db = await getAppDb();
  try {
    const cmp = await getExperimentComparison(db, parsed.data.base, parsed.data.head);
    return <CompareView cmp={cmp} />;
  } catch (err) {
    if (isAppError(err, "not_found"))
      return (
        <p className="text-slate-800" role="alert">
          {err.message}
        </p>
      );
    throw err;
  }
}
