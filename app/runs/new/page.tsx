import { startRunAction } from "@/app/actions/runs";
import { StartRunForm } from "@/components/runs/start-run-form";
import { bankOptions } from "@/lib/server/banks";
import { getAppDb } from "@/lib/server/db";
import { queryValue, type SearchParams } from "@/lib/server/page-params";

export const dynamic = "force-dynamic";

export default async function NewRunPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const banks = await bankOptions(await getAppDb());
  return (
    <div>
      <h1 className="mb-3 font-semibold text-lg">New reflect run</h1>
      <StartRunForm
        banks={banks}
        startRun={startRunAction}
        initial={{
          question: queryValue(params, "q"),
          bankId: queryValue(params, "bank"),
          skill: queryValue(params, "skill"),
        }}
      />
    </div>
  );
}
