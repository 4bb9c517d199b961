import { startRunAction } from "@/app/actions/runs";
import { StartRunForm } from "@/components/runs/start-run-form";
import { queryValue, type SearchParams } from "@/lib/server/http/page-params";
import { getAppDb } from "@/lib/server/runtime/db";
import { bankOptions } from "@/lib/server/services/banks";

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
