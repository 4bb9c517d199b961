import { startRunAction } from "@/app/actions/runs";
import { StartRunForm } from "@/components/runs/start-run-form";
import { bankOptions } from "@/lib/server/banks";
import { getAppDb } from "@/lib/server/db";

export const dynamic = "force-dynamic";

export default async function NewRunPage({ searchParams }: { searchParams: Promise<Record<string, string>> }) {
  const params = await searchParams;
  const banks = await bankOptions(await getAppDb());
  return (
    <div>
      <h1 className="mb-3 font-semibold text-lg">New reflect run</h1>
      <StartRunForm
        banks={banks}
        startRun={startRunAction}
        initial={{ question: params.q, bankId: params.bank, skill: params.skill }}
      />
    </div>
  );
}
